import { randomBytes } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { authed, newIdempotencyKey, type TestApp } from './app.js';

/** An enabled EVM network of the app's catalogue, for challenges. */
export function evmChainId(app: TestApp): number {
  const network = app.context.catalogue.networks().find((candidate) => candidate.family === 'evm' && candidate.enabled);
  if (network === undefined) throw new Error('the test catalogue has no enabled EVM network');
  return network.chainId;
}

export function newWalletAccount(): PrivateKeyAccount {
  return privateKeyToAccount(generatePrivateKey());
}

/**
 * The real agent sign-in over HTTP (SPEC "Authentication" 5): challenge, an
 * EIP-191 signature of the message exactly as received, verify.
 */
export async function signInWithWallet(
  app: TestApp,
  account: PrivateKeyAccount = newWalletAccount(),
): Promise<{ token: string; userId: string; account: PrivateKeyAccount }> {
  const challenge = await app.request({
    method: 'POST',
    url: '/api/v1/auth/wallet/challenge',
    payload: { address: account.address, chain_id: evmChainId(app) },
  });
  if (challenge.statusCode !== 200) throw new Error(`wallet challenge failed: ${challenge.statusCode} ${challenge.body}`);
  const { challenge_id, message } = challenge.json<{ challenge_id: string; message: string }>();
  const signature = await account.signMessage({ message });
  const verify = await app.request({
    method: 'POST',
    url: '/api/v1/auth/wallet/verify',
    payload: { challenge_id, signature },
  });
  if (verify.statusCode !== 200) throw new Error(`wallet verify failed: ${verify.statusCode} ${verify.body}`);
  const session = verify.json<{ token: string; user: { user_id: string } }>();
  return { token: session.token, userId: session.user.user_id, account };
}

/** A fresh address on a domain no disposable list carries. */
export function newEmail(): string {
  return `owner-${randomBytes(6).toString('hex')}@example.com`;
}

/**
 * POST /onboarding with a fresh Idempotency-Key. A wallet-only user needs an
 * e-mail, so one is made up unless given; `null` sends none.
 */
export async function onboard(
  app: TestApp,
  token: string,
  name = 'Acme',
  email: string | null = newEmail(),
): Promise<LightMyRequestResponse> {
  return app.request({
    method: 'POST',
    url: '/api/v1/onboarding',
    headers: authed(token, newIdempotencyKey()),
    payload: email === null ? { name } : { name, email },
  });
}
