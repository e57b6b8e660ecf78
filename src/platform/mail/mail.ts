import type { FastifyBaseLogger } from 'fastify';
import nodemailer from 'nodemailer';

/** A plain-text message to one recipient. */
export interface MailMessage {
  readonly to: string;
  readonly subject: string;
  readonly text: string;
}

/**
 * Where the mail worker hands a message. `send` resolves once the message was
 * accepted and throws otherwise; the worker then retries from the row.
 */
export interface MailTransport {
  send(message: MailMessage): Promise<void>;
  close?(): void;
}

/** SMTP through nodemailer, from `SMTP_URL` (`smtp://` or `smtps://`, credentials in the URL). */
export function smtpTransport(url: string, from: string): MailTransport {
  const transporter = nodemailer.createTransport({
    url,
    // A server that hangs must not hold a claimed batch past its lease.
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 20_000,
  });
  return {
    async send(message) {
      await transporter.sendMail({ from, to: message.to, subject: message.subject, text: message.text });
    },
    close: () => transporter.close(),
  };
}

/**
 * Without `SMTP_URL`: the message is written to the log at info level instead,
 * so that someone running Ivory locally can read a sign-in code. A message
 * logged counts as sent.
 */
export function logTransport(log: FastifyBaseLogger): MailTransport {
  return {
    async send(message) {
      log.info({ mail: { to: message.to, subject: message.subject, text: message.text } }, 'mail logged, not sent: SMTP_URL is not set');
    },
  };
}

/** The sender address when none is configured: `<brand> <no-reply@host of the public URL>`. */
export function defaultSender(brand: string, publicUrl: string): string {
  return `${brand} <no-reply@${new URL(publicUrl).hostname}>`;
}
