import { getAddress, isAddress } from 'viem';
import { generateSiweNonce } from 'viem/siwe';
import type { Catalogue } from '../catalogue/index.js';
import { familyRules } from '../chains/index.js';
import type { Clock } from '../platform/clock.js';
import { newId } from '../platform/crypto.js';
import type { Executor } from '../platform/database/database.js';
import { fieldError } from '../platform/errors.js';
import { insertWalletChallenge } from './accounts.repository.js';
import { CHALLENGE_LIFETIME_MS, signInMessage } from './wallet-challenge.js';

export interface WalletChallengeDeps {
  readonly db: Executor;
  readonly clock: Clock;
  readonly catalogue: Catalogue;
  readonly publicUrl: string;
  readonly brand: string;
}

/**
 * SPEC "Sign-in" POST /auth/wallet/challenge. The address may come in any
 * case; the message carries its checksummed form. The chain must be an
 * enabled network of a family with wallet sign-in (EVM: SIWE) in the
 * catalogue (a ready token is not needed to sign in).
 */
export async function requestWalletChallenge(
  deps: WalletChallengeDeps,
  input: { readonly address: string; readonly chainId: number },
): Promise<{ challengeId: string; message: string }> {
  if (!isAddress(input.address, { strict: false })) throw fieldError('invalid_address', 'address', 'must be an EVM address: 0x and 40 hex digits');
  const network = deps.catalogue.network(input.chainId);
  if (network === undefined || !familyRules(network.family).walletSignIn || !network.enabled) {
    throw fieldError('unsupported_network', 'chain_id', 'must be the chain_id of an EVM network in GET /networks');
  }

  const address = getAddress(input.address);
  const issuedAt = deps.clock.now();
  const expiresAt = new Date(issuedAt.getTime() + CHALLENGE_LIFETIME_MS);
  const nonce = generateSiweNonce();
  const message = signInMessage({
    publicUrl: deps.publicUrl,
    brand: deps.brand,
    address,
    chainId: input.chainId,
    nonce,
    issuedAt,
    expiresAt,
  });
  const challengeId = newId();
  await insertWalletChallenge(deps.db, {
    id: challengeId,
    address,
    chainId: input.chainId,
    nonce,
    message,
    createdAt: issuedAt,
    expiresAt,
  });
  return { challengeId, message };
}
