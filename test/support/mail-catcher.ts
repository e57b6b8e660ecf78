import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface CaughtMail {
  readonly from: string;
  readonly to: readonly string[];
  /** The whole message as received (headers and body). */
  readonly raw: string;
}

export interface MailCatcher {
  /** `smtp://127.0.0.1:<port>`: the SMTP_URL of an app under test. */
  readonly url: string;
  readonly messages: readonly CaughtMail[];
  /** The next `count` messages are refused with a temporary error (451) at RCPT TO. */
  refuseNext(count: number): void;
  close(): Promise<void>;
}

/**
 * A real SMTP server (`smtp-server`) on a loopback port that keeps what it
 * receives: the peer the mail worker talks to in tests. No TLS, no AUTH.
 */
export async function startMailCatcher(): Promise<MailCatcher> {
  const messages: CaughtMail[] = [];
  let refusals = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    logger: false,
    onRcptTo(_address, _session, callback) {
      if (refusals > 0) {
        refusals -= 1;
        callback(Object.assign(new Error('mailbox busy, try later'), { responseCode: 451 }));
        return;
      }
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        messages.push({
          from: session.envelope.mailFrom === false ? '' : session.envelope.mailFrom.address,
          to: session.envelope.rcptTo.map((recipient) => recipient.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    refuseNext(count) {
      refusals = count;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The 6-digit code of the latest message to `address`, or undefined. */
export function latestCode(catcher: MailCatcher, address: string): string | undefined {
  const message = catcher.messages.filter((mail) => mail.to.includes(address)).at(-1);
  return message === undefined ? undefined : /sign-in code is (\d{6})/.exec(message.raw)?.[1];
}
