import { verifyMessage, type Hex } from 'viem';
import type { Clock } from '../platform/clock.js';
import { inTransaction, type Db } from '../platform/database/database.js';
import { IvoryError } from '../platform/errors.js';
import { isUuid } from '../platform/ids.js';
import { consumeWalletChallenge, findUsableWalletChallenge, findUser } from './accounts.repository.js';
import { findOrCreateIdentityUser } from './find-or-create-identity-user.js';
import { sessionUserView, type SessionUserView } from './session.js';
import { startSession } from './start-session.js';

const HEX = /^0x(?:[0-9a-fA-F]{2})+$/;

export interface WalletSession {
  readonly token: string;
  readonly expiresAt: Date;
  readonly user: SessionUserView;
}

/**
 * SPEC "Sign-in" POST /auth/wallet/verify. Every failure (unknown, expired or
 * used challenge, malformed or wrong signature) is the same `unauthorized`, so
 * the answer tells a prober nothing. The challenge is consumed in the
 * transaction that opens the session; a failure consumes nothing.
 */
export async function verifyWalletSignIn(
  deps: { readonly db: Db; readonly clock: Clock },
  input: { readonly challengeId: string; readonly signature: string },
): Promise<WalletSession> {
  if (!isUuid(input.challengeId) || !HEX.test(input.signature)) throw new IvoryError('unauthorized');
  const challenge = await findUsableWalletChallenge(deps.db, input.challengeId, deps.clock.now());
  if (challenge === undefined) throw new IvoryError('unauthorized');
  // Checked before the transaction: recovery is CPU work that should not hold the embedded database's one session.
  if (!(await signatureMatches(challenge.address, challenge.message, input.signature as Hex))) {
    throw new IvoryError('unauthorized');
  }

  return inTransaction(deps.db, async (trx) => {
    if (!(await consumeWalletChallenge(trx, challenge.id, deps.clock.now()))) throw new IvoryError('unauthorized');
    const userId = await findOrCreateIdentityUser(trx, deps.clock, {
      provider: 'wallet',
      subject: challenge.address.toLowerCase(),
      label: challenge.address,
    });
    const session = await startSession(trx, deps.clock, userId, 'wallet');
    const user = await findUser(trx, userId);
    if (user === undefined) throw new Error(`user ${userId} vanished while signing in`);
    return { token: session.token, expiresAt: session.expiresAt, user: sessionUserView(user, null) };
  });
}

async function signatureMatches(address: string, message: string, signature: Hex): Promise<boolean> {
  try {
    return await verifyMessage({ address: address as Hex, message, signature });
  } catch {
    return false; // not a recoverable secp256k1 signature
  }
}
