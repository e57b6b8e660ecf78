import type { SecretBox } from '../platform/crypto.js';

/**
 * The endpoint secret is shown once, in the answer to its creation or
 * rotation. That answer is also kept as the idempotent response (so that a
 * retried request gets the same secret), and nothing may hold the secret in
 * clear at rest: the use case returns it sealed, the route opens it into the
 * answer, and the stored answer's bytes are sealed as a whole (decision 0019).
 */
export interface SealedSecretBody {
  readonly secret_sealed: string;
}

export function revealSecret<T extends SealedSecretBody>(body: T, secrets: SecretBox): Omit<T, 'secret_sealed'> & { secret: string } {
  const { secret_sealed: sealed, ...rest } = body;
  return { ...rest, secret: secrets.open(sealed) };
}
