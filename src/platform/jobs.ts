import type { FastifyBaseLogger } from 'fastify';

/**
 * A worker handler over rows in PostgreSQL (ARCHITECTURE rule 4). `run` claims
 * due rows with `FOR UPDATE SKIP LOCKED`, does a bounded batch and returns how
 * many it handled; it must be idempotent. Nothing is kept in memory between
 * runs, so any number of processes may run the same job.
 */
export interface Job {
  readonly name: string;
  /** Pause between polls when the last run found nothing to do. */
  readonly idleMs: number;
  run(): Promise<number>;
  /** Releases what the job holds between runs (connection pools); called once at stop. */
  close?(): Promise<void>;
}

export interface JobRunner {
  /** Runs every job until nothing is due (tests use this instead of timers). */
  drain(): Promise<void>;
  stop(): Promise<void>;
}

export function startJobs(jobs: readonly Job[], log: FastifyBaseLogger, { poll = true } = {}): JobRunner {
  let stopping = false;
  const loops: Promise<void>[] = [];
  const timers = new Set<{ wake: () => void }>();

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const waiter = { wake: () => resolve() };
      const timer = setTimeout(() => {
        timers.delete(waiter);
        resolve();
      }, ms);
      waiter.wake = () => {
        clearTimeout(timer);
        timers.delete(waiter);
        resolve();
      };
      timers.add(waiter);
    });

  const loop = async (job: Job) => {
    while (!stopping) {
      let handled = 0;
      try {
        handled = await job.run();
      } catch (error) {
        log.error({ err: error, job: job.name }, 'job failed; retrying after its idle pause');
      }
      if (handled === 0 && !stopping) await sleep(job.idleMs);
    }
  };

  if (poll) for (const job of jobs) loops.push(loop(job));

  return {
    async drain() {
      for (let round = 0; round < 100; round += 1) {
        let handled = 0;
        for (const job of jobs) handled += await job.run();
        if (handled === 0) return;
      }
      throw new Error('jobs did not drain in 100 rounds');
    },
    async stop() {
      stopping = true;
      for (const timer of [...timers]) timer.wake();
      await Promise.all(loops);
      await Promise.all(jobs.map((job) => job.close?.()));
    },
  };
}
