import { ed25519 } from '@noble/curves/ed25519';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authed, createTestApp, newIdempotencyKey, type TestApp } from '../support/app.js';
import { createOwnerWithShop } from '../support/factories.js';
import { RecordingChainAdapter } from '../support/recording-chain-adapter.js';
import { ADMIN_TOKEN, admin } from './admin-helpers.js';
import { BASE, BASE_USDC, SOLANA, SOLANA_USDC, TRON, TRON_USDT, createDeposit, createInvoice, read, usdc } from './issuances-helpers.js';
import { base58, countRows, errorCode, json, tronAddressOfKey } from './merchants-helpers.js';
import { payoutRow, watcherConfirms } from './payouts-helpers.js';

// Issue 11 item 4; SPEC "Shop" (payout_target `wallet` for a live shop sent
// without recipient; solana_payout_target / tron_payout_target `address` or
// `wallet`; recipient and delegate changes reach new issuances only), SPEC
// "Errors" (wallet_not_ready, solana_bridge_unavailable,
// tron_bridge_unavailable, merchant_network_disabled), "Merchants and team"
// (GET /merchants/{id}/networks wallet_bridge); decision 0017.

const OLD_RECIPIENT = '0x000000000000000000000000000000000000dEaD';
const NEW_RECIPIENT = '0x52908400098527886E0F7030069857D2E4169EE7';
const NEW_DELEGATE = '0x8617E340B3D01FA5F11F306F4090FD50E238070D';
const EVM_WALLET = '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359';
const EVM_WALLET_2 = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const SOLANA_WALLET = base58(ed25519.getPublicKey(ed25519.utils.randomPrivateKey()));
const TRON_WALLET = tronAddressOfKey(`0x${'44'.repeat(32)}`);

let app: TestApp;
let adapter: RecordingChainAdapter;
beforeAll(async () => {
  adapter = new RecordingChainAdapter();
  app = await createTestApp({ ADMIN_TOKEN }, undefined, { liveChainAdapters: new Map([[BASE, adapter]]) });
});
afterAll(async () => {
  await app.close();
});

type Owner = Awaited<ReturnType<typeof createOwnerWithShop>>;

function setup(merchantId: string, payload: unknown) {
  return admin(app, 'PATCH', `/merchants/${merchantId}/payout-setup`, { payload });
}
function createShop(owner: Owner, payload: Record<string, unknown>) {
  return app.request({
    method: 'POST',
    url: `/api/v1/merchants/${owner.merchant.id}/shops`,
    headers: json(authed(owner.session.token, newIdempotencyKey())),
    payload,
  });
}
function patchShop(owner: Owner, shopId: string, payload: Record<string, unknown>) {
  return app.request({ method: 'PATCH', url: `/api/v1/shops/${shopId}`, headers: json(authed(owner.session.token, newIdempotencyKey())), payload });
}
async function storedShops(merchantId: string) {
  return app.context.db.selectFrom('shops').selectAll().where('merchant_id', '=', merchantId).orderBy('created_at').orderBy('id').execute();
}
/** A refused call: its status and code, and proof that no shop row and no idempotency record changed. */
async function refused(merchantId: string, call: () => Promise<{ statusCode: number; json(): unknown }>) {
  const before = { shops: await storedShops(merchantId), records: await countRows(app.context.db, 'idempotency_records') };
  const response = await call();
  expect({ shops: await storedShops(merchantId), records: await countRows(app.context.db, 'idempotency_records') }).toEqual(before);
  return { status: response.statusCode, code: errorCode(response) };
}

/** An invoice over HTTP, allocated by the adapter; its id and payment address. */
async function liveInvoice(token: string, shopId: string, amount: string) {
  const created = await createInvoice(app, token, shopId, { chain_id: BASE, token: BASE_USDC, amount });
  expect(created.statusCode, created.body).toBe(202);
  await app.jobs.drain();
  const invoice = await read(app, token, shopId, created.json().id);
  return { id: invoice.id as string, address: invoice.address as string };
}

/** Pays the invoice in full as the watcher would and runs the payout worker; what the adapter was asked to send. */
async function payInFull(invoice: { id: string; address: string }, amount: string) {
  await watcherConfirms(app, invoice.id, invoice.address, amount);
  await app.jobs.drain();
  const payout = await payoutRow(app, invoice.id);
  return { payout, send: adapter.sends.find((send) => send.payoutId === payout.id) };
}

describe('EVM recipient and delegate changes apply to new issuances only (SPEC "Shop")', () => {
  it('an invoice created before PATCH /shops/{id} is allocated with and paid to the old recipient; one created after, the new', async () => {
    const owner = await createOwnerWithShop(app.context.db, { sandbox: false });
    const before = await liveInvoice(owner.key.token, owner.shop.id, usdc(20));
    const patched = await patchShop(owner, owner.shop.id, { recipient: NEW_RECIPIENT, delegate: NEW_DELEGATE });
    expect(patched.statusCode, patched.body).toBe(200);
    const after = await liveInvoice(owner.key.token, owner.shop.id, usdc(20));

    // What the forwarder address commits to (the CREATE2 salt fixes the split).
    const allocation = (id: string) => adapter.allocations.find((request) => request.issuanceId === id);
    expect(allocation(before.id)).toMatchObject({ recipient: OLD_RECIPIENT, delegate: null });
    expect(allocation(after.id)).toMatchObject({ recipient: NEW_RECIPIENT, delegate: NEW_DELEGATE });
    const stored = await app.context.db.selectFrom('issuances').select(['id', 'recipient', 'delegate']).where('id', 'in', [before.id, after.id]).execute();
    expect(new Map(stored.map((row) => [row.id, [row.recipient, row.delegate]]))).toEqual(
      new Map([
        [before.id, [OLD_RECIPIENT, null]],
        [after.id, [NEW_RECIPIENT, NEW_DELEGATE]],
      ]),
    );

    // Paid after the change, the old invoice still pays the old recipient.
    const oldPayout = await payInFull(before, usdc(20));
    expect(oldPayout.payout.recipient).toBe(OLD_RECIPIENT);
    expect(oldPayout.send?.recipient).toBe(OLD_RECIPIENT);
    const newPayout = await payInFull(after, usdc(20));
    expect(newPayout.payout.recipient).toBe(NEW_RECIPIENT);
    expect(newPayout.send?.recipient).toBe(NEW_RECIPIENT);
  });

  it('a deposit address created before a change keeps the old recipient and delegate', async () => {
    const owner = await createOwnerWithShop(app.context.db, { sandbox: false });
    const created = await createDeposit(app, owner.key.token, owner.shop.id, { chain_id: BASE, token: BASE_USDC });
    expect(created.statusCode).toBe(202);
    expect((await patchShop(owner, owner.shop.id, { recipient: NEW_RECIPIENT, delegate: NEW_DELEGATE })).statusCode).toBe(200);
    await app.jobs.drain();
    const row = await app.context.db.selectFrom('issuances').select(['recipient', 'delegate']).where('id', '=', created.json().id).executeTakeFirstOrThrow();
    expect(row).toEqual({ recipient: OLD_RECIPIENT, delegate: null });
    expect(adapter.allocations.find((request) => request.issuanceId === created.json().id)).toMatchObject({ recipient: OLD_RECIPIENT, delegate: null });
  });
});

describe('payout_target wallet: the merchant service wallet (SPEC "Shop", "Errors")', () => {
  it('wallet_not_ready until operator staff set up the EVM service wallet; then a live shop without recipient pays into it', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    expect(await refused(owner.merchant.id, () => createShop(owner, { name: 'Wallet shop', sandbox: false, payout_target: 'wallet' }))).toEqual({
      status: 400,
      code: 'wallet_not_ready',
    });

    const configured = await setup(owner.merchant.id, { service_wallets: { evm: EVM_WALLET.toLowerCase() } });
    expect(configured.statusCode, configured.body).toBe(200);
    expect(configured.json()).toEqual({ merchant_id: owner.merchant.id, service_wallets: { evm: EVM_WALLET, solana: null, tron: null }, tron_enabled: true });

    const created = await createShop(owner, { name: 'Wallet shop', sandbox: false, payout_target: 'wallet' });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json()).toMatchObject({ payout_target: 'wallet', recipient: null });
    // With a recipient as well, the body contradicts itself.
    expect(
      await refused(owner.merchant.id, () => createShop(owner, { name: 'Both', sandbox: false, payout_target: 'wallet', recipient: NEW_RECIPIENT })),
    ).toEqual({ status: 400, code: 'invalid_recipient' });

    // The invoice copies the service wallet address as it is at creation.
    const shopId = created.json().id as string;
    const first = await liveInvoice(owner.session.token, shopId, usdc(15));
    expect((await setup(owner.merchant.id, { service_wallets: { evm: EVM_WALLET_2 } })).statusCode).toBe(200);
    const second = await liveInvoice(owner.session.token, shopId, usdc(15));
    expect((await payInFull(first, usdc(15))).send?.recipient).toBe(EVM_WALLET);
    expect((await payInFull(second, usdc(15))).send?.recipient).toBe(EVM_WALLET_2);

    // The wallet removed: new invoices are wallet_not_ready, nothing created.
    expect((await setup(owner.merchant.id, { service_wallets: { evm: null } })).json().service_wallets.evm).toBeNull();
    const issuances = await countRows(app.context.db, 'issuances');
    const refusedInvoice = await createInvoice(app, owner.session.token, shopId, { chain_id: BASE, token: BASE_USDC, amount: usdc(15) });
    expect(errorCode(refusedInvoice)).toBe('wallet_not_ready');
    expect(await countRows(app.context.db, 'issuances')).toBe(issuances);
  });

  it('a recipient sent to a wallet shop makes it pay to that address from now on (payout_target address)', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    await setup(owner.merchant.id, { service_wallets: { evm: EVM_WALLET } });
    const shop = (await createShop(owner, { name: 'Wallet shop', sandbox: false, payout_target: 'wallet' })).json();
    const patched = await patchShop(owner, shop.id, { recipient: NEW_RECIPIENT });
    expect(patched.json()).toMatchObject({ payout_target: 'address', recipient: NEW_RECIPIENT });
  });
});

describe('solana_payout_target and tron_payout_target (SPEC "Shop", "Errors")', () => {
  it('Solana wallet target: solana_bridge_unavailable without a Solana service wallet, on create and on PATCH; accepted once set up', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const body = { name: 'Sol', sandbox: false, recipient: NEW_RECIPIENT, solana_payout_target: 'wallet' };
    expect(await refused(owner.merchant.id, () => createShop(owner, body))).toEqual({ status: 400, code: 'solana_bridge_unavailable' });
    expect(await refused(owner.merchant.id, () => patchShop(owner, owner.shop.id, { solana_payout_target: 'wallet' }))).toEqual({
      status: 400,
      code: 'solana_bridge_unavailable',
    });
    // The merchant's network list says the same.
    const networks = async () =>
      (await app.request({ method: 'GET', url: `/api/v1/merchants/${owner.merchant.id}/networks`, headers: authed(owner.session.token) })).json();
    expect((await networks()).find((network: { family?: string }) => network.family === 'solana').wallet_bridge).toBe(false);

    expect((await setup(owner.merchant.id, { service_wallets: { solana: SOLANA_WALLET } })).statusCode).toBe(200);
    expect((await networks()).find((network: { family?: string }) => network.family === 'solana').wallet_bridge).toBe(true);
    const created = await createShop(owner, body);
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json()).toMatchObject({ solana_payout_target: 'wallet', solana_recipient: null });
    expect((await patchShop(owner, owner.shop.id, { solana_payout_target: 'wallet' })).json().solana_payout_target).toBe('wallet');
    // `address` needs nothing from the operator.
    expect((await patchShop(owner, owner.shop.id, { solana_payout_target: 'address' })).statusCode).toBe(200);
  });

  it('a live Solana issuance on a wallet target whose wallet was removed: solana_bridge_unavailable', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    await setup(owner.merchant.id, { service_wallets: { solana: SOLANA_WALLET } });
    const shop = (await createShop(owner, { name: 'Sol', sandbox: false, recipient: NEW_RECIPIENT, solana_payout_target: 'wallet' })).json();
    await setup(owner.merchant.id, { service_wallets: { solana: null } });
    const response = await createInvoice(app, owner.session.token, shop.id, { chain_id: SOLANA, token: SOLANA_USDC, amount: usdc(5) });
    expect(errorCode(response)).toBe('solana_bridge_unavailable');
  });

  it('Tron wallet target: tron_bridge_unavailable without a Tron service wallet; accepted once set up', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    expect(await refused(owner.merchant.id, () => patchShop(owner, owner.shop.id, { tron_payout_target: 'wallet' }))).toEqual({
      status: 400,
      code: 'tron_bridge_unavailable',
    });
    await setup(owner.merchant.id, { service_wallets: { tron: TRON_WALLET } });
    expect((await patchShop(owner, owner.shop.id, { tron_payout_target: 'wallet' })).json().tron_payout_target).toBe('wallet');
  });

  it('Tron off for the merchant: merchant_network_disabled on a Tron wallet target, on Tron issuances; Tron leaves the merchant network list', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    await setup(owner.merchant.id, { service_wallets: { tron: TRON_WALLET }, tron_enabled: false });
    expect(await refused(owner.merchant.id, () => patchShop(owner, owner.shop.id, { tron_payout_target: 'wallet' }))).toEqual({
      status: 400,
      code: 'merchant_network_disabled',
    });
    expect(
      await refused(owner.merchant.id, () => createShop(owner, { name: 'T', sandbox: false, recipient: NEW_RECIPIENT, tron_payout_target: 'wallet' })),
    ).toEqual({ status: 400, code: 'merchant_network_disabled' });
    const issuance = await createInvoice(app, owner.key.token, owner.shop.id, { chain_id: TRON, token: TRON_USDT, amount: usdc(10) });
    expect(errorCode(issuance)).toBe('merchant_network_disabled');
    const networks = (await app.request({ method: 'GET', url: `/api/v1/merchants/${owner.merchant.id}/networks`, headers: authed(owner.session.token) })).json();
    expect(networks.some((network: { family?: string }) => network.family === 'tron')).toBe(false);

    await setup(owner.merchant.id, { tron_enabled: true });
    expect((await patchShop(owner, owner.shop.id, { tron_payout_target: 'wallet' })).statusCode).toBe(200);
  });
});

describe('operator payout setup (PATCH /admin/v1/merchants/{id}/payout-setup)', () => {
  it('checks each address as a recipient of its family and stores nothing refused; an empty change is invalid_request; audited', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const wallets = () => app.context.db.selectFrom('merchant_service_wallets').selectAll().where('merchant_id', '=', owner.merchant.id).execute();
    for (const [payload, code] of [
      [{ service_wallets: { evm: '0x5AAEB6053f3e94c9b9a09f33669435e7ef1beaed' } }, 'invalid_recipient'],
      [{ service_wallets: { evm: '0x0000000000000000000000000000000000000000' } }, 'invalid_recipient'],
      [{ service_wallets: { solana: 'not base58 0OIl' } }, 'invalid_solana_address'],
      [{ service_wallets: { tron: `${TRON_WALLET.slice(0, -1)}${TRON_WALLET.endsWith('1') ? '2' : '1'}` } }, 'invalid_tron_checksum'],
      [{ service_wallets: { evm: EVM_WALLET, solana: 'short' } }, 'invalid_solana_address'],
      [{}, 'invalid_request'],
      [{ service_wallets: {} }, 'invalid_request'],
    ] as const) {
      const response = await setup(owner.merchant.id, payload);
      expect(errorCode(response), JSON.stringify(payload)).toBe(code);
      expect(await wallets()).toEqual([]);
    }
    expect((await admin(app, 'PATCH', `/merchants/${owner.merchant.id}/payout-setup`, { payload: { tron_enabled: false }, token: 'wrong' })).statusCode).toBe(401);
    expect((await setup('00000000-0000-4000-8000-000000000000', { tron_enabled: false })).statusCode).toBe(404);

    expect((await setup(owner.merchant.id, { service_wallets: { evm: EVM_WALLET, tron: TRON_WALLET } })).statusCode).toBe(200);
    const read = await admin(app, 'GET', `/merchants/${owner.merchant.id}/payout-setup`);
    expect(read.json()).toEqual({ merchant_id: owner.merchant.id, service_wallets: { evm: EVM_WALLET, solana: null, tron: TRON_WALLET }, tron_enabled: true });
    const audit = await app.context.db.selectFrom('admin_audit_entries').selectAll().where('target_id', '=', owner.merchant.id).execute();
    expect(audit.map((entry) => entry.action)).toEqual(['merchant.payout_setup']);
  });
});
