import net from 'node:net';

/**
 * A loopback port free now, picked by the OS. Another process may take it
 * before the caller listens on it; good enough for tests that start a program
 * on it right away.
 */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

export interface HealthzWait {
  /** Give up after this long (a start on two shared cores can take minutes). */
  readonly timeoutMs: number;
  /** False once the program has exited: no use waiting any longer. */
  readonly running: () => boolean;
  /** What the program printed, for the error when it never became healthy. */
  readonly output?: () => string;
}

/** Polls `${baseUrl}/healthz` until it answers 200 and returns that answer; throws if the program exits or time runs out first. */
export async function waitForHealthz(baseUrl: string, wait: HealthzWait): Promise<Response> {
  const deadline = Date.now() + wait.timeoutMs;
  while (wait.running() && Date.now() < deadline) {
    const health = await fetch(`${baseUrl}/healthz`).catch(() => undefined);
    if (health?.status === 200) return health;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const why = wait.running() ? `no 200 within ${wait.timeoutMs} ms` : 'the program exited';
  throw new Error(`${baseUrl}/healthz: ${why}\n${wait.output?.() ?? ''}`);
}
