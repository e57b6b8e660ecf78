import type { SecretBox } from '../platform/crypto.js';

/**
 * The endpoint secret is shown once, in the answer to its creation or
 * rotation. That answer is also kept as the idempotent response (so that a
 * retried request gets the same secret), and nothing may hold the secret in
 * clear at rest: the stored answer carries it sealed, and the route opens it
 * just before sending, the first time and on every replay of the answer.
 */
export interface SealedSecretBody {
  readonly secret_sealed: string;
}

export function revealSecret<T extends SealedSecretBody>(body: T, secrets: SecretBox): Omit<T, 'secret_sealed'> & { secret: string } {
  const { secret_sealed: sealed, ...rest } = body;
  return { ...rest, secret: secrets.open(sealed) };
}
