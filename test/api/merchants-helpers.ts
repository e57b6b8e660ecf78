import { createHash } from 'node:crypto';
import { createBase58check } from '@scure/base';
import { privateKeyToAccount } from 'viem/accounts';
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

// ed25519 field and curve constant, to tell on-curve keys from program-derived
// ones independently of the library the service uses.
const P = 2n ** 255n - 19n;
const D = (-121665n * modPow(121666n, P - 2n)) % P;
function modPow(base: bigint, exponent: bigint): bigint {
  let result = 1n;
  let factor = ((base % P) + P) % P;
  for (let rest = exponent; rest > 0n; rest >>= 1n) {
    if (rest & 1n) result = (result * factor) % P;
    factor = (factor * factor) % P;
  }
  return result;
}

/** Whether 32 bytes decode to an ed25519 point: x² = (y² − 1)/(d·y² + 1) must be a square mod p. */
export function onCurve(bytes: Uint8Array): boolean {
  let y = 0n;
  for (let index = 31; index >= 0; index -= 1) y = (y << 8n) + BigInt(bytes[index]!);
  y &= (1n << 255n) - 1n;
  const y2 = (y * y) % P;
  const x2 = (((y2 - 1n + P) % P) * modPow((D * y2 + 1n) % P, P - 2n)) % P;
  return x2 === 0n || modPow(x2, (P - 1n) / 2n) === 1n;
}

/**
 * Solana's find_program_address: for bump 255 down to 0, sha256(seeds ‖ bump ‖
 * program id ‖ "ProgramDerivedAddress"); the first hash that is OFF the curve
 * is the address (so no private key can exist for it).
 */
export function findProgramAddress(seeds: readonly Uint8Array[], programId: Uint8Array): { address: Uint8Array; bump: number } {
  for (let bump = 255; bump >= 0; bump -= 1) {
    const hash = createHash('sha256');
    for (const seed of seeds) hash.update(seed);
    const address = hash.update(Uint8Array.of(bump)).update(programId).update('ProgramDerivedAddress').digest();
    if (!onCurve(address)) return { address, bump };
  }
  throw new Error('no program address for these seeds');
}

const tronBase58check = createBase58check((data: Uint8Array) => createHash('sha256').update(data).digest());

/** A Tron account address as wallets derive it from a secp256k1 key: 0x41 ‖ the EVM address bytes, base58check. */
export function tronAddressOfKey(privateKey: `0x${string}`): string {
  const evm = privateKeyToAccount(privateKey).address;
  return tronBase58check.encode(Uint8Array.from([0x41, ...Buffer.from(evm.slice(2), 'hex')]));
}
