import type { Clock } from '../clock.js';
import { newId, type SecretBox } from '../crypto.js';
import type { Executor } from '../database/database.js';
import type { MailMessage } from './mail.js';
import { insertMail } from './mail-outbox.repository.js';

/**
 * Records a message for the mail worker, in the caller's transaction
 * (ARCHITECTURE rule 1: nothing is sent inside a request). The body is sealed
 * with SECRET_KEY because it may carry a secret. A message with `expiresAt` is
 * given up rather than sent after that moment.
 */
export async function enqueueMail(
  db: Executor,
  deps: { readonly clock: Clock; readonly secrets: SecretBox },
  message: MailMessage,
  options: { readonly expiresAt?: Date } = {},
): Promise<string> {
  const id = newId();
  await insertMail(db, {
    id,
    recipient: message.to,
    subject: message.subject,
    bodySealed: deps.secrets.seal(message.text),
    createdAt: deps.clock.now(),
    expiresAt: options.expiresAt ?? null,
  });
  return id;
}
