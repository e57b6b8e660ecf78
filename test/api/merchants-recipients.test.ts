import { createHash } from 'node:crypto';
import { ed25519 } from '@noble/curves/ed25519';
import { base58 as scureBase58 } from '@scure/base';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { writeServiceWallet, writeTronEnabled } from '../../src/merchants/index.js';
import { authed, createTestApp, newIdempotencyKey, type TestApp } from '../support/app.js';
import { createApiKey, createOwnerWithShop } from '../support/factories.js';
import { base58, countRows, errorCode, findProgramAddress, json, member, onCurve, tronAddressOfKey } from './merchants-helpers.js';

function findKey(wantOnCurve: boolean, seed: string): string {
  for (let index = 0; ; index += 1) {
    const bytes = createHash('sha256').update(`${seed}${index}`).digest();
    bytes[31]! &= 0x7f;
    if (onCurve(bytes) === wantOnCurve) return base58(bytes);
  }
}
function base58Decode(text: string): Uint8Array {
  return scureBase58.decode(text);
}
function tronAddress(payload: Uint8Array): string {
  const checksum = createHash('sha256').update(createHash('sha256').update(payload).digest()).digest().subarray(0, 4);
  return base58(Uint8Array.from([...payload, ...checksum]));
}

const SOLANA_WALLET = base58(ed25519.getPublicKey(ed25519.utils.randomPrivateKey()));
const SOLANA_OTHER = findKey(true, 'other');
// A wallet address seen on Solana mainnet (an exchange hot wallet), on the curve.
const SOLANA_KNOWN_WALLET = '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM';
const SOLANA_USDC_MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGJPFXCWuBvf9Ss623VQ5DA';
const ASSOCIATED_TOKEN_PROGRAM = 'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL';
/** A real program-derived address: the known wallet's associated USDC token account (seeds wallet, token program, mint). */
const SOLANA_PDA = base58(
  findProgramAddress([SOLANA_KNOWN_WALLET, TOKEN_PROGRAM, SOLANA_USDC_MINT].map(base58Decode), base58Decode(ASSOCIATED_TOKEN_PROGRAM)).address,
);
/** Off the curve without being derived: the other kind of key no wallet holds. */
const SOLANA_OFF_CURVE = findKey(false, 'pda');
const TRON_USDT = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
/** Tron accounts as a wallet derives them from a secp256k1 key. */
const TRON_WALLET = tronAddressOfKey(`0x${'42'.repeat(32)}`);
const TRON_OTHER = tronAddressOfKey(`0x${'43'.repeat(32)}`);
const TRON_BAD_CHECKSUM = `${TRON_USDT.slice(0, -1)}u`;

// SPEC "Shops": GET/PUT /shops/{id}/solana-recipient and /tron-recipient;
// SPEC "Shop": immutable once set; SPEC "Errors" for the address codes.
describe('Solana and Tron recipients', () => {
  let app: TestApp;
  let owner: Awaited<ReturnType<typeof createOwnerWithShop>>;

  beforeAll(async () => {
    app = await createTestApp();
  });
  afterAll(async () => {
    await app.close();
  });
  beforeEach(async () => {
    owner = await createOwnerWithShop(app.context.db);
  });

  const put = (family: string, address: unknown, token = owner.session.token, shopId = owner.shop.id, key = newIdempotencyKey()) =>
    app.request({ method: 'PUT', url: `/api/v1/shops/${shopId}/${family}-recipient`, headers: json(authed(token, key)), payload: { address } });
  const get = (family: string, token = owner.session.token, shopId = owner.shop.id) =>
    app.request({ method: 'GET', url: `/api/v1/shops/${shopId}/${family}-recipient`, headers: authed(token) });
  const stored = async () =>
    app.context.db.selectFrom('shops').select(['solana_recipient', 'tron_recipient']).where('id', '=', owner.shop.id).executeTakeFirstOrThrow();

  async function refused(call: () => Promise<{ statusCode: number; json(): unknown }>) {
    const before = { shop: await stored(), records: await countRows(app.context.db, 'idempotency_records') };
    const response = await call();
    expect({ shop: await stored(), records: await countRows(app.context.db, 'idempotency_records') }).toEqual(before);
    return { status: response.statusCode, code: errorCode(response) };
  }

  it('test vectors are what they claim: the independent curve check agrees with real public keys', () => {
    for (let index = 0; index < 20; index += 1) {
      expect(onCurve(ed25519.getPublicKey(ed25519.utils.randomPrivateKey()))).toBe(true);
    }
    expect(onCurve(base58Decode(SOLANA_KNOWN_WALLET))).toBe(true);
    expect(base58Decode(SOLANA_PDA)).toHaveLength(32);
    expect(onCurve(base58Decode(SOLANA_PDA))).toBe(false);
    expect(TRON_BAD_CHECKSUM).toHaveLength(34);
    expect(TRON_WALLET).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);
  });

  it('Solana: real wallet addresses are accepted (a fresh ed25519 public key, a well-known mainnet wallet)', async () => {
    expect((await put('solana', SOLANA_KNOWN_WALLET)).json()).toEqual({ address: SOLANA_KNOWN_WALLET });
    const other = await createOwnerWithShop(app.context.db);
    const fresh = await put('solana', SOLANA_WALLET, other.session.token, other.shop.id);
    expect(fresh.json()).toEqual({ address: SOLANA_WALLET });
  });

  it("Solana: the service's own addresses are invalid_solana_address: an accepted mint, any merchant's service wallet", async () => {
    expect(await refused(() => put('solana', SOLANA_USDC_MINT))).toEqual({ status: 400, code: 'invalid_solana_address' });
    const other = await createOwnerWithShop(app.context.db);
    // A wallet of its own: SOLANA_OTHER must stay a plain recipient for the tests below.
    const serviceWallet = base58(ed25519.getPublicKey(ed25519.utils.randomPrivateKey()));
    await writeServiceWallet(app.context.db, other.merchant.id, 'solana', serviceWallet, app.clock.now());
    expect(await refused(() => put('solana', serviceWallet))).toEqual({ status: 400, code: 'invalid_solana_address' });
  });

  it("Tron: the service's own addresses are invalid_tron_recipient: an accepted token contract, any merchant's service wallet", async () => {
    expect(await refused(() => put('tron', TRON_USDT))).toEqual({ status: 400, code: 'invalid_tron_recipient' });
    const other = await createOwnerWithShop(app.context.db);
    // A wallet of its own: TRON_OTHER must stay a plain recipient for the tests below.
    const serviceWallet = tronAddressOfKey(`0x${'44'.repeat(32)}`);
    await writeServiceWallet(app.context.db, other.merchant.id, 'tron', serviceWallet, app.clock.now());
    expect(await refused(() => put('tron', serviceWallet))).toEqual({ status: 400, code: 'invalid_tron_recipient' });
  });

  it('Tron: merchant_network_disabled while Tron is off for the merchant; GET still answers', async () => {
    await writeTronEnabled(app.context.db, owner.merchant.id, false);
    expect(await refused(() => put('tron', TRON_WALLET))).toEqual({ status: 400, code: 'merchant_network_disabled' });
    expect((await get('tron')).json()).toEqual({ address: '' });
    await writeTronEnabled(app.context.db, owner.merchant.id, true);
    expect((await put('tron', TRON_WALLET)).statusCode).toBe(200);
  });

  for (const [family, first, second] of [
    ['solana', SOLANA_WALLET, SOLANA_OTHER],
    ['tron', TRON_WALLET, TRON_OTHER],
  ] as const) {
    it(`${family}: empty until set, then set once; the same again is 200, a different one shop_addresses_immutable`, async () => {
      expect((await get(family)).json()).toEqual({ address: '' });
      const set = await put(family, first);
      expect(set.statusCode).toBe(200);
      expect(set.json()).toEqual({ address: first });
      expect((await get(family)).json()).toEqual({ address: first });
      const shop = await app.request({ method: 'GET', url: `/api/v1/shops/${owner.shop.id}`, headers: authed(owner.session.token) });
      expect(shop.json()[`${family}_recipient`]).toBe(first);

      const again = await put(family, first);
      expect(again.statusCode).toBe(200);
      expect(again.json()).toEqual({ address: first });
      expect(await refused(() => put(family, second))).toEqual({ status: 400, code: 'shop_addresses_immutable' });
      expect((await get(family)).json()).toEqual({ address: first });
    });

    it(`${family}: concurrent first settings with different addresses: exactly one wins`, async () => {
      const sent = [first, second, first, second];
      const responses = await Promise.all(sent.map((address) => put(family, address)));
      const winner = (await get(family)).json().address;
      expect([first, second]).toContain(winner);
      responses.forEach((response, index) => {
        if (sent[index] === winner) expect(response.statusCode).toBe(200);
        else expect(errorCode(response)).toBe('shop_addresses_immutable');
      });
    });

    it(`${family}: GET for any key of the shop and any role; PUT for owner sessions only`, async () => {
      const writeKey = await createApiKey(app.context.db, { id: owner.shop.id, merchantId: owner.merchant.id }, { scopes: ['write'] });
      expect((await get(family, writeKey.token)).statusCode).toBe(200);
      const viewer = await member(app.context.db, owner.merchant.id, 'viewer');
      expect((await get(family, viewer.token)).statusCode).toBe(200);
      const developer = await member(app.context.db, owner.merchant.id, 'developer');
      expect(await refused(() => put(family, first, developer.token))).toEqual({ status: 403, code: 'forbidden' });
      expect(await refused(() => put(family, first, owner.key.token))).toEqual({ status: 403, code: 'forbidden' });
      const stranger = await createOwnerWithShop(app.context.db);
      expect(await refused(() => put(family, first, stranger.session.token))).toEqual({ status: 404, code: 'shop_not_found' });
      expect((await get(family, stranger.key.token)).statusCode).toBe(404);
      expect(
        await refused(() =>
          app.request({
            method: 'PUT',
            url: `/api/v1/shops/${owner.shop.id}/${family}-recipient`,
            headers: json(authed(owner.session.token)),
            payload: { address: first },
          }),
        ),
      ).toEqual({ status: 400, code: 'idempotency_key_required' });
    });
  }

  it('Solana: malformed, wrong length, off-curve (program-derived) and all-zero keys are invalid_solana_address', async () => {
    for (const address of [
      '',
      'abc',
      SOLANA_PDA,
      SOLANA_OFF_CURVE,
      '11111111111111111111111111111111',
      base58(new Uint8Array(31).fill(9)),
      base58(new Uint8Array(33).fill(9)),
      `${SOLANA_WALLET.slice(0, -1)}0`,
      `${SOLANA_WALLET.slice(0, -1)}l`,
      ` ${SOLANA_WALLET}`,
      '0x52908400098527886E0F7030069857D2E4169EE7',
      TRON_USDT,
      42,
      null,
    ]) {
      expect(await refused(() => put('solana', address)), String(address)).toEqual({ status: 400, code: 'invalid_solana_address' });
    }
  });

  it('Solana: a sandbox shop may set its recipient too', async () => {
    expect((await put('solana', SOLANA_WALLET)).statusCode).toBe(200);
  });

  it('Tron: malformed is invalid_tron_address, a mistyped checksum invalid_tron_checksum', async () => {
    expect(await refused(() => put('tron', TRON_BAD_CHECKSUM))).toEqual({ status: 400, code: 'invalid_tron_checksum' });
    for (const address of [
      '',
      'T',
      TRON_USDT.slice(0, -1),
      `${TRON_USDT}1`,
      `${TRON_USDT.slice(0, -1)}0`,
      tronAddress(Uint8Array.from([0x42, ...new Array(20).fill(7)])),
      tronAddress(Uint8Array.from([0x41, ...new Array(20).fill(0)])),
      base58(Uint8Array.from([0x41, ...new Array(20).fill(7)])),
      '0x52908400098527886E0F7030069857D2E4169EE7',
      SOLANA_WALLET,
      7,
    ]) {
      expect(await refused(() => put('tron', address)), String(address)).toEqual({ status: 400, code: 'invalid_tron_address' });
    }
  });

  it('works through the legacy /projects alias', async () => {
    const response = await app.request({
      method: 'PUT',
      url: `/api/v1/projects/${owner.shop.id}/tron-recipient`,
      headers: json(authed(owner.session.token, newIdempotencyKey())),
      payload: { address: TRON_WALLET },
    });
    expect(response.statusCode).toBe(200);
    expect((await get('tron')).json()).toEqual({ address: TRON_WALLET });
  });
});
