import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../clock.js';
import type { SecretBox } from '../crypto.js';
import type { Db } from '../database/database.js';
import type { Job } from '../jobs.js';
import type { MailTransport } from './mail.js';
import { claimDueMail, failMail, markMailSent, rescheduleMail, type ClaimedMail } from './mail-outbox.repository.js';

/** Seconds before the 2nd, 3rd … attempt; after the last, the message is given up. */
export const MAIL_RETRY_SECONDS: readonly number[] = [10, 30, 60, 120, 300, 600, 1_800, 3_600];
export const MAX_MAIL_ATTEMPTS = MAIL_RETRY_SECONDS.length + 1;

const BATCH = 10;
/** Covers a batch sent at once, each attempt bounded by the transport's timeouts. */
const LEASE_MS = 5 * 60 * 1000;
const MAX_ERROR_LENGTH = 500;

export interface SendMailDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly secrets: SecretBox;
  readonly transport: MailTransport;
  readonly log: FastifyBaseLogger;
  /** Jitter source, [0, 1) like Math.random. */
  readonly random?: () => number;
}

/**
 * The mail worker (ARCHITECTURE rules 1 and 4): claims due rows of
 * `mail_outbox` with SKIP LOCKED, sends them outside any transaction, records
 * each outcome; a failure is retried with back-off and jitter, from the row.
 * At-least-once: a worker that dies between sending and recording leaves its
 * lease to run out and the message is sent again.
 */
export class SendMailJob implements Job {
  readonly name = 'send-mail';
  readonly idleMs = 1_000;

  constructor(private readonly deps: SendMailDeps) {}

  async run(): Promise<number> {
    const now = this.deps.clock.now();
    const claimed = await claimDueMail(this.deps.db, { now, leaseUntil: new Date(now.getTime() + LEASE_MS), limit: BATCH });
    await Promise.all(claimed.map((mail) => this.#deliver(mail)));
    return claimed.length;
  }

  close(): Promise<void> {
    this.deps.transport.close?.();
    return Promise.resolve();
  }

  async #deliver(mail: ClaimedMail): Promise<void> {
    const { db, clock, secrets, transport, log } = this.deps;
    if (mail.expiresAt !== null && mail.expiresAt <= clock.now()) {
      await failMail(db, mail.id, 'expired before it could be sent');
      return;
    }
    if (mail.bodySealed === null) {
      await failMail(db, mail.id, 'no body');
      return;
    }
    try {
      await transport.send({ to: mail.recipient, subject: mail.subject, text: secrets.open(mail.bodySealed) });
    } catch (error) {
      const reason = (error instanceof Error ? error.message : String(error)).slice(0, MAX_ERROR_LENGTH);
      const delaySeconds = MAIL_RETRY_SECONDS[mail.attempts - 1];
      if (delaySeconds === undefined) {
        log.warn({ mailId: mail.id, attempts: mail.attempts, reason }, 'mail given up');
        await failMail(db, mail.id, reason);
      } else {
        const jitter = 0.8 + 0.4 * (this.deps.random ?? Math.random)();
        await rescheduleMail(db, mail.id, new Date(clock.now().getTime() + delaySeconds * 1000 * jitter), reason);
      }
      return;
    }
    await markMailSent(db, mail.id, clock.now());
  }
}
