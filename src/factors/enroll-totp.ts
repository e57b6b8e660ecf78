import type { Clock } from '../platform/clock.js';
import type { SecretBox } from '../platform/crypto.js';
import { inTransaction, type Db } from '../platform/database/database.js';
import { savePendingTotpSecret } from './mfa.repository.js';
import { newTotpSecret, totpSetupUri } from './totp.js';

/**
 * SPEC "Sign-in" POST /auth/totp/enroll: a new secret, sealed at rest and
 * pending until POST /auth/totp/verify {code, enroll: true} confirms it. A
 * user who already has TOTP keeps it until then (the route asks such a
 * session for a fresh confirmation: a factor change). The URI is shown once.
 */
export async function enrollTotp(
  deps: { readonly db: Db; readonly clock: Clock; readonly secrets: SecretBox; readonly brand: string },
  userId: string,
): Promise<{ readonly uri: string }> {
  const secret = newTotpSecret();
  await inTransaction(deps.db, (trx) => savePendingTotpSecret(trx, userId, deps.secrets.seal(secret), deps.clock.now()));
  return { uri: totpSetupUri(deps.brand, userId, secret) };
}
