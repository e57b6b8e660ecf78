import type { Executor } from '../../src/platform/database/database.js';
import type { Role } from '../../src/platform/database/schema.js';
import type { ApiKeyPrincipal, SessionPrincipal } from '../../src/platform/http/principal.js';
import { newId } from '../../src/platform/crypto.js';
import { createSession, createUser } from '../support/factories.js';

/** Helpers shared by the merchants-* and keys-* API tests. */

export async function grantRole(db: Executor, merchantId: string, userId: string, role: Role, shopId: string | null = null): Promise<void> {
  await db.insertInto('grants').values({ id: newId(), merchant_id: merchantId, user_id: userId, role, shop_id: shopId }).execute();
}

/** A signed-in, onboarded person holding `role` on the merchant (or on one shop of it). */
export async function member(db: Executor, merchantId: string, role: Role, shopId: string | null = null) {
  const user = await createUser(db);
  const session = await createSession(db, user.id);
  await grantRole(db, merchantId, user.id, role, shopId);
  return { userId: user.id, token: session.token };
}

export { countRows } from '../support/database.js';

export function sessionPrincipal(userId: string): SessionPrincipal {
  return { kind: 'session', sessionId: newId(), userId, csrfToken: 'x', expiresAt: new Date(Date.now() + 3_600_000), mfaAt: null };
}

export function keyPrincipal(shopId: string, merchantId: string, scopes: ApiKeyPrincipal['scopes'] = ['read', 'write']): ApiKeyPrincipal {
  return { kind: 'api_key', keyId: newId(), shopId, merchantId, scopes };
}

/** The error envelope of a response, for one-line assertions. */
export function errorCode(response: { json(): unknown }): string | undefined {
  return (response.json() as { error?: { code?: string } }).error?.code;
}

export const json = (headers: Record<string, string>): Record<string, string> => ({ ...headers, 'content-type': 'application/json' });

/** Bitcoin-alphabet base58, for building Solana and Tron test addresses. */
export function base58(bytes: Uint8Array): string {
  const alphabet = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
  let value = 0n;
  for (const byte of bytes) value = value * 256n + BigInt(byte);
  let text = '';
  while (value > 0n) {
    text = alphabet[Number(value % 58n)]! + text;
    value /= 58n;
  }
  for (const byte of bytes) {
    if (byte !== 0) break;
    text = `1${text}`;
  }
  return text;
}
