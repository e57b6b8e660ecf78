import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ed25519 } from '@noble/curves/ed25519';
import { base58 } from '../../src/chains/base58.js';
import { exportDepositKey, importSolanaRelayerKey, parseSolanaKeypair } from '../../src/chains/index.js';
import { listIssuanceChainTransfers } from '../../src/chains/ingest/index.js';
import { findDepositAddress } from '../../src/chains/solana/solana-keys.repository.js';
import { RETIRE_AFTER_MS } from '../../src/chains/solana/reclaim-rent.job.js';
import type { SolanaRpc } from '../../src/chains/solana/solana-rpc.js';
import { SolanaWatcherJob } from '../../src/chains/solana/solana-watcher.job.js';
import { transferLedger } from '../support/evm-ledger.js';
import { authed, newIdempotencyKey } from '../support/app.js';
import { createMerchant, createSession, createShop, createUser } from '../support/factories.js';
import {
  SOLANA_CHAIN_ID,
  adminNetworks,
  allocationPasses,
  balanceOf,
  createSolanaDeposit,
  createSolanaInvoice,
  eventTypes,
  eventsOf,
  fundRelayer,
  liveSolanaShop,
  newRecipient,
  pay,
  readIssuance,
  settle,
  startSolanaHarness,
  tokenAccountOf,
  waitUntil,
  type SolanaHarness,
} from '../support/solana-chain.js';

// Issue 24: live Solana invoices on the local node (devnets/solana-node) through the real app
// (catalogue entry with rpc_url → Solana driver: allocation, watcher, sweeps, tracker), balances
// checked on chain. SPEC "States and transitions", "Events"; LEDGER "Invoices", "Fees".

const usd = (whole: number) => BigInt(Math.round(whole * 1_000_000));
/** LEDGER "Fees" with the harness's terms (50 bps, min 0.1, max 5 tokens), in 6-decimal units. */
const fee = (amount: bigint) => {
  const raw = (amount * 50n) / 10_000n;
  return raw < 100_000n ? 100_000n : raw > 5_000_000n ? 5_000_000n : raw;
};

describe('live Solana invoices on the local node', () => {
  let chain: SolanaHarness;
  beforeAll(async () => {
    chain = await startSolanaHarness({ otherMint: true });
  }, 60_000);
  afterAll(async () => {
    await chain.close();
  });

  it('issue 24 item 4: the relayer is generated on first start and shown with its lamports', async () => {
    const [network] = await adminNetworks(chain.app);
    expect(network?.chain_id).toBe(SOLANA_CHAIN_ID);
    expect(network?.relayer_address).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
    expect(network?.relayer_balance).toBe('0');
    await fundRelayer(chain, 2_000_000_000n);
    expect((await adminNetworks(chain.app))[0]?.relayer_balance).toBe('2000000000');
  });

  it('admin network status (issue 24): last_scanned_block on Solana is the finalized slot read before the watcher\'s last complete pass; a transfer finalized by then is recorded', async () => {
    const recipient = await newRecipient(chain);
    const shop = await liveSolanaShop(chain.app, recipient);
    const { allocated: invoice } = await createSolanaInvoice(chain, shop, usd(3));
    const signature = await pay(chain, invoice.address, usd(1));
    const { value: [status] } = await chain.rpc.getSignatureStatuses([signature as never]).send();
    const paidSlot = status?.slot ?? 0n;
    await waitUntil(async () => chain.node.slot('finalized') >= paidSlot);
    const finalizedBefore = chain.node.slot('finalized');
    chain.app.clock.advance(60_000);
    await chain.app.jobs.drain();
    const finalizedAfter = chain.node.slot('finalized');

    const [network] = await adminNetworks(chain.app);
    const scanned = BigInt(network?.last_scanned_block ?? -1);
    expect(scanned).toBeGreaterThanOrEqual(finalizedBefore);
    expect(scanned).toBeLessThanOrEqual(finalizedAfter);
    expect(scanned).toBeGreaterThanOrEqual(paidSlot);
    // head_block is the slot at confirmed: ahead of (or at) what is finalized.
    expect(BigInt(network?.head_block ?? -1)).toBeGreaterThanOrEqual(scanned);
    const rows = await listIssuanceChainTransfers(chain.app.context.db, invoice.id);
    expect(rows.map((row) => [row.amount, row.status])).toEqual([[usd(1), 'confirmed']]);
    expect((await readIssuance(chain, shop, invoice.id)).received).toBe(usd(1).toString());
  });

  it('admin network status (issue 24): a watcher pass that fails part-way leaves last_scanned_block where it was; the next complete pass moves it', async () => {
    const before = (await adminNetworks(chain.app))[0]?.last_scanned_block ?? null;
    expect(before).not.toBeNull();
    await waitUntil(async () => chain.node.slot('finalized') > BigInt(before ?? 0) + 2n);
    // The node answers getSlot but not the account reads (a node failing mid-pass).
    const failing = new Proxy(chain.rpc, {
      get: (target, property, receiver) =>
        property === 'getMultipleAccounts' ? () => ({ send: () => Promise.reject(new Error('node down mid-pass')) }) : Reflect.get(target, property, receiver),
    });
    const watcher = (rpc: SolanaRpc) =>
      new SolanaWatcherJob({ db: chain.app.context.db, clock: chain.app.clock, rpc, chainId: SOLANA_CHAIN_ID, pollIntervalMs: 50, ledger: transferLedger, log: chain.app.context.log });
    expect(await watcher(failing).run()).toBe(0);
    expect((await adminNetworks(chain.app))[0]?.last_scanned_block).toBe(before);
    const finalized = chain.node.slot('finalized');
    await watcher(chain.rpc).run();
    expect(BigInt((await adminNetworks(chain.app))[0]?.last_scanned_block ?? -1)).toBeGreaterThanOrEqual(finalized);
  });

  it('issue 24: allocation does not wait for the chain: with slots stopped, one pass sends the token account creations of two invoices and returns; each opens once its account is confirmed, from the one creation sent', async () => {
    const shop = await liveSolanaShop(chain.app, await newRecipient(chain));
    chain.node.pause();
    const ids: string[] = [];
    for (const amount of [usd(4), usd(6)]) {
      const response = await chain.app.request({
        method: 'POST',
        url: `/api/v1/shops/${shop.shopId}/invoices`,
        headers: authed(shop.token, newIdempotencyKey()),
        payload: { chain_id: SOLANA_CHAIN_ID, token: chain.mint, amount: amount.toString() },
      });
      expect(response.statusCode, response.body).toBe(202);
      ids.push(response.json<{ id: string }>().id);
    }
    const started = Date.now();
    await chain.app.jobs.drain();
    // Waiting for confirmed here took up to 30 s per issuance, one after the other.
    expect(Date.now() - started).toBeLessThan(5_000);
    const creations = await Promise.all(ids.map(async (id) => (await findDepositAddress(chain.app.context.db, id))?.creation?.signature));
    expect(creations).toEqual([expect.any(String), expect.any(String)]);
    for (const id of ids) expect((await readIssuance(chain, shop, id)).status).toBe('registering');
    // Asked again while the creation can still land: nothing new is sent.
    chain.app.clock.advance(1_000);
    await chain.app.jobs.drain();
    expect(await Promise.all(ids.map(async (id) => (await findDepositAddress(chain.app.context.db, id))?.creation?.signature))).toEqual(creations);
    // Waiting for the chain is not a failure: the allocation's back-off does not grow.
    const attempts = await chain.app.context.db.selectFrom('issuances').select('allocation_attempts').where('id', 'in', ids).execute();
    expect(attempts.map((row) => row.allocation_attempts)).toEqual([0, 0]);

    chain.node.resume();
    await allocationPasses(chain, async () => (await Promise.all(ids.map(async (id) => (await readIssuance(chain, shop, id)).status))).every((status) => status === 'open'));
    for (const [index, id] of ids.entries()) {
      const deposit = await findDepositAddress(chain.app.context.db, id);
      const history = await chain.rpc.getSignaturesForAddress(deposit?.tokenAccount as never, { commitment: 'confirmed' }).send();
      expect(history.map((entry) => entry.signature)).toEqual([creations[index]]);
    }
  });

  it('issue 24: a token account creation that can no longer land (rolled back, its blockhash expired) is sent again, and the issuance opens', async () => {
    const shop = await liveSolanaShop(chain.app, await newRecipient(chain));
    chain.node.pause();
    const response = await chain.app.request({
      method: 'POST',
      url: `/api/v1/shops/${shop.shopId}/invoices`,
      headers: authed(shop.token, newIdempotencyKey()),
      payload: { chain_id: SOLANA_CHAIN_ID, token: chain.mint, amount: usd(5).toString() },
    });
    const id = response.json<{ id: string }>().id;
    await chain.app.jobs.drain();
    const first = (await findDepositAddress(chain.app.context.db, id))?.creation;
    if (first === undefined) throw new Error('no token account creation noted');
    expect(chain.node.drop(first.signature)).toMatchObject({ dropped: true });
    chain.node.resume();
    await allocationPasses(chain, async () => (await readIssuance(chain, shop, id)).status === 'open');
    const second = (await findDepositAddress(chain.app.context.db, id))?.creation;
    expect(second?.signature).not.toBe(first.signature);
    // Sent only once the first could no longer land: the confirmed height had passed its blockhash's expiry.
    expect(chain.node.slot('confirmed')).toBeGreaterThan(first.lastValidBlockHeight);
    const history = await chain.rpc.getSignaturesForAddress((await findDepositAddress(chain.app.context.db, id))?.tokenAccount as never, { commitment: 'confirmed' }).send();
    expect(history.map((entry) => entry.signature)).toEqual([second?.signature]);
  });

  it('an exact invoice: registering until its token account exists, observed at confirmed, credited at finalized, swept in one transaction, settled', async () => {
    const recipient = await newRecipient(chain);
    const shop = await liveSolanaShop(chain.app, recipient);
    const amount = usd(25);
    const { created, allocated } = await createSolanaInvoice(chain, shop, amount);
    // SPEC: registering means the address is not yet allocated.
    expect(created.status).toBe('registering');
    expect(created.address ?? '').toBe('');
    expect(allocated.status).toBe('open');
    // The payment address is the deposit key's wallet address, never its token account.
    const deposit = await findDepositAddress(chain.app.context.db, allocated.id);
    expect(deposit?.ownerAddress).toBe(allocated.address);
    expect(deposit?.tokenAccount).toBe(await tokenAccountOf(chain, allocated.address));
    const [account] = (await chain.rpc.getMultipleAccounts([await tokenAccountOf(chain, allocated.address)], { commitment: 'confirmed', encoding: 'base64' }).send()).value;
    expect(account).not.toBeNull();

    chain.node.pause();
    const paid = await payPaused(chain, allocated.address, amount);
    chain.app.clock.advance(60_000);
    await chain.app.jobs.drain();
    expect(await eventTypes(chain, allocated.id)).toEqual(['transfer.observed']);
    expect((await readIssuance(chain, shop, allocated.id)).received).toBe('0');
    chain.node.resume();

    const feeWalletBefore = await balanceOf(chain, chain.feeWallet);
    await settle(chain);
    const settled = await readIssuance(chain, shop, allocated.id);
    expect(settled.status).toBe('settled');
    expect(settled.received).toBe(amount.toString());
    expect(await eventTypes(chain, allocated.id)).toEqual(['transfer.observed', 'transfer.confirmed', 'payout.sent', 'payout.confirmed', 'invoice.closed']);
    expect(paid).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/);

    // On chain: the recipient got exactly amount − fee, the fee wallet the fee; the deposit account is empty.
    expect(await balanceOf(chain, recipient)).toBe(amount - fee(amount));
    expect((await balanceOf(chain, chain.feeWallet)) - feeWalletBefore).toBe(fee(amount));
    expect(await balanceOf(chain, allocated.address)).toBe(0n);
    const sweep = await chain.rpc.getTransaction(settled.payout_tx_hash as never, { commitment: 'finalized', encoding: 'json', maxSupportedTransactionVersion: 0 }).send();
    expect(sweep?.meta?.err).toBeNull();
  });

  it('an invoice paid in two transfers stays open on the partial payment, then settles (LEDGER "Invoices": partial payments add up)', async () => {
    const recipient = await newRecipient(chain);
    const shop = await liveSolanaShop(chain.app, recipient);
    const { allocated: invoice } = await createSolanaInvoice(chain, shop, usd(100));
    await pay(chain, invoice.address, usd(40));
    await settle(chain);
    const partial = await readIssuance(chain, shop, invoice.id);
    expect(partial.status).toBe('open');
    expect(partial.received).toBe(usd(40).toString());
    expect(await balanceOf(chain, recipient)).toBe(0n);

    await pay(chain, invoice.address, usd(60));
    await settle(chain);
    expect((await readIssuance(chain, shop, invoice.id)).status).toBe('settled');
    expect(await balanceOf(chain, recipient)).toBe(usd(99.5));
    expect(await balanceOf(chain, invoice.address)).toBe(0n);
  });

  it('an overpaid invoice: the recipient gets exactly amount − fee, the fee wallet fee plus the excess (LEDGER "Invoices")', async () => {
    const recipient = await newRecipient(chain);
    const shop = await liveSolanaShop(chain.app, recipient);
    const { allocated: invoice } = await createSolanaInvoice(chain, shop, usd(100));
    const feeWalletBefore = await balanceOf(chain, chain.feeWallet);
    await pay(chain, invoice.address, usd(130));
    await settle(chain);
    expect((await readIssuance(chain, shop, invoice.id)).status).toBe('settled');
    expect(await balanceOf(chain, recipient)).toBe(usd(99.5));
    expect((await balanceOf(chain, chain.feeWallet)) - feeWalletBefore).toBe(usd(30.5));
    expect(await balanceOf(chain, invoice.address)).toBe(0n);
  });

  it('a deposit swept twice: each time B reaches the threshold, B − fee(B) to the recipient (LEDGER "Deposits")', async () => {
    const recipient = await newRecipient(chain);
    const shop = await liveSolanaShop(chain.app, recipient);
    const deposit = await createSolanaDeposit(chain, shop);
    expect(deposit.status).toBe('open');
    await pay(chain, deposit.address, usd(12));
    await settle(chain);
    expect(await balanceOf(chain, recipient)).toBe(usd(12) - fee(usd(12)));
    await pay(chain, deposit.address, usd(15));
    await settle(chain);
    expect(await balanceOf(chain, recipient)).toBe(usd(12) - fee(usd(12)) + usd(15) - fee(usd(15)));
    expect(await balanceOf(chain, deposit.address)).toBe(0n);
    const types = await eventTypes(chain, deposit.id);
    expect(types.filter((type) => type === 'payout.confirmed')).toHaveLength(2);
  });

  it('issue 24 item 5: a deposit swept and paid the same amount again between two polls (its account data as it was) is still seen: only an empty account is remembered as quiet', async () => {
    await fundRelayer(chain);
    const recipient = await newRecipient(chain);
    const shop = await liveSolanaShop(chain.app, recipient);
    const deposit = await createSolanaDeposit(chain, shop);
    // A watcher of our own, beside the app's: its memory of quiet accounts is what is under test.
    const watcher = new SolanaWatcherJob({ db: chain.app.context.db, clock: chain.app.clock, rpc: chain.rpc, chainId: SOLANA_CHAIN_ID, pollIntervalMs: 50, ledger: transferLedger, log: chain.app.context.log });
    const confirmed = async (signature: string) => {
      await waitUntil(async () => {
        const { value: [status] } = await chain.rpc.getSignatureStatuses([signature as never]).send();
        return status?.confirmationStatus === 'confirmed' || status?.confirmationStatus === 'finalized';
      });
    };
    const first = await pay(chain, deposit.address, usd(12));
    await confirmed(first);
    const { value: [paid] } = await chain.rpc.getSignatureStatuses([first as never]).send();
    await waitUntil(async () => chain.node.slot('finalized') >= (paid?.slot ?? 0n));
    await watcher.run(); // reads the payment, final: the account's cursor moves past it
    await watcher.run(); // nothing new: the account (12 USDC) is quiet now — and would be remembered so
    await settle(chain); // the app credits and sweeps the 12: the account is empty again
    expect(await balanceOf(chain, deposit.address)).toBe(0n);
    const again = await pay(chain, deposit.address, usd(12));
    await confirmed(again);
    // The same 12 USDC in the same account: its data is byte for byte what our watcher last saw.
    await watcher.run();
    const rows = await listIssuanceChainTransfers(chain.app.context.db, deposit.id);
    expect(rows.map((row) => row.txHash)).toContain(again);
  });

  it('a rollback before finalized: the transfer observed at confirmed and dropped is never credited (issue 24 item 5)', async () => {
    const recipient = await newRecipient(chain);
    const shop = await liveSolanaShop(chain.app, recipient);
    const { allocated: invoice } = await createSolanaInvoice(chain, shop, usd(10));
    const signature = await payPaused(chain, invoice.address, usd(10));
    chain.app.clock.advance(60_000);
    await chain.app.jobs.drain();
    expect(await eventTypes(chain, invoice.id)).toEqual(['transfer.observed']);
    expect(chain.node.drop(signature)).toMatchObject({ dropped: true });
    chain.node.resume();
    await settle(chain);
    const after = await readIssuance(chain, shop, invoice.id);
    expect(after.status).toBe('open');
    expect(after.received).toBe('0');
    expect(await eventTypes(chain, invoice.id)).toEqual(['transfer.observed']);
    const rows = await listIssuanceChainTransfers(chain.app.context.db, invoice.id);
    expect(rows.map((row) => row.status)).toEqual(['dropped']);
    expect(await balanceOf(chain, invoice.address)).toBe(0n);
  });

  it('SPEC "Errors": a Solana recipient that is a service address (the relayer, a deposit address, its token account) is invalid_solana_address and changes nothing', async () => {
    const recipient = await newRecipient(chain);
    const shop = await liveSolanaShop(chain.app, recipient);
    const { allocated: invoice } = await createSolanaInvoice(chain, shop, usd(5));
    const [network] = await adminNetworks(chain.app);
    const user = await createUser(chain.app.context.db);
    const session = await createSession(chain.app.context.db, user.id);
    const merchant = await createMerchant(chain.app.context.db, user.id);
    const fresh = await createShop(chain.app.context.db, merchant.id, { sandbox: false });
    const put = (address: string) =>
      chain.app.request({ method: 'PUT', url: `/api/v1/shops/${fresh.id}/solana-recipient`, headers: authed(session.token, newIdempotencyKey()), payload: { address } });
    for (const address of [network?.relayer_address ?? '', invoice.address, await tokenAccountOf(chain, invoice.address)]) {
      const refused = await put(address);
      expect(refused.statusCode, address).toBe(400);
      expect(refused.json().error.code).toBe('invalid_solana_address');
    }
    const stored = await chain.app.context.db.selectFrom('shops').select('solana_recipient').where('id', '=', fresh.id).executeTakeFirstOrThrow();
    expect(stored.solana_recipient).toBeNull();
    // A wallet is accepted; a different one afterwards is shop_addresses_immutable.
    expect((await put(recipient)).statusCode).toBe(200);
    const changed = await put(await newRecipient(chain, false));
    expect(changed.json().error.code).toBe('shop_addresses_immutable');
  });

  it('issue 24 item 1: export-key gives the operator the issuance\'s deposit keypair (base58, seed then public key) for recovery by hand', async () => {
    const shop = await liveSolanaShop(chain.app, await newRecipient(chain));
    const { allocated: invoice } = await createSolanaInvoice(chain, shop, usd(5));
    const exported = await exportDepositKey(chain.app.context.db, chain.app.context.secrets, invoice.id);
    expect(exported?.address).toBe(invoice.address);
    const keypair = base58.decode(exported?.secretKey ?? '');
    expect(keypair).toHaveLength(64);
    expect(base58.encode(keypair.subarray(32))).toBe(invoice.address);
    expect(base58.encode(ed25519.getPublicKey(keypair.subarray(0, 32)))).toBe(invoice.address);
    expect(await exportDepositKey(chain.app.context.db, chain.app.context.secrets, '00000000-0000-4000-8000-000000000000')).toBeUndefined();
  });

  it('SPEC "Errors": a recipient holding no token account for the mint is solana_recipient_token_account_required, for invoices and deposits, and nothing is created', async () => {
    const recipient = await newRecipient(chain, false);
    const shop = await liveSolanaShop(chain.app, recipient);
    const count = async () => Number((await chain.app.context.db.selectFrom('issuances').select((eb) => eb.fn.countAll().as('n')).where('shop_id', '=', shop.shopId).executeTakeFirstOrThrow()).n);
    for (const [path, payload] of [
      ['invoices', { chain_id: SOLANA_CHAIN_ID, token: chain.mint, amount: usd(10).toString() }],
      ['invoices', { chain_id: SOLANA_CHAIN_ID, token: chain.mint, amount: usd(10).toString() }],
      ['deposits', { chain_id: SOLANA_CHAIN_ID, token: chain.mint }],
    ] as const) {
      const refused = await chain.app.request({ method: 'POST', url: `/api/v1/shops/${shop.shopId}/${path}`, headers: authed(shop.token, newIdempotencyKey()), payload });
      expect(refused.statusCode, path).toBe(400);
      expect(refused.json().error.code).toBe('solana_recipient_token_account_required');
    }
    expect(await count()).toBe(0);
    // Once the recipient opens one, the same request succeeds.
    await chain.node.mintTo({ mint: chain.mint, owner: recipient as never, amount: 0n });
    await waitUntil(async () => (await chain.rpc.getMultipleAccounts([await tokenAccountOf(chain, recipient)], { commitment: 'confirmed', encoding: 'base64' }).send()).value[0] !== null);
    const { allocated } = await createSolanaInvoice(chain, shop, usd(10));
    expect(allocated.status).toBe('open');
  });

  it('issue 24 item 2: a retired invoice address gives its token account\'s rent back to the relayer, and a later transfer to it (the payer re-creates the account) is still recorded as late', async () => {
    const recipient = await newRecipient(chain);
    const shop = await liveSolanaShop(chain.app, recipient);
    const { allocated: invoice } = await createSolanaInvoice(chain, shop, usd(10));
    await pay(chain, invoice.address, usd(10));
    await settle(chain);
    expect((await readIssuance(chain, shop, invoice.id)).status).toBe('settled');
    const account = await tokenAccountOf(chain, invoice.address);
    const relayerBefore = BigInt((await adminNetworks(chain.app))[0]?.relayer_balance ?? '0');
    chain.app.clock.advance(RETIRE_AFTER_MS);
    await settle(chain, 1);
    expect((await chain.rpc.getMultipleAccounts([account], { commitment: 'confirmed', encoding: 'base64' }).send()).value[0]).toBeNull();
    const rent = await chain.rpc.getMinimumBalanceForRentExemption(165n).send();
    // The rent back, less the close's signature (the relayer pays it). Other retired addresses of
    // this shared harness may close in the same pass, so only a lower bound is exact here.
    expect(BigInt((await adminNetworks(chain.app))[0]?.relayer_balance ?? '0') - relayerBefore).toBeGreaterThanOrEqual(rent - 10_000n);

    await pay(chain, invoice.address, usd(3));
    await settle(chain);
    const late = await readIssuance(chain, shop, invoice.id);
    expect(late.status).toBe('settled');
    expect(late.received).toBe(usd(13).toString());
    expect(await balanceOf(chain, invoice.address)).toBe(usd(3));
    expect((await eventTypes(chain, invoice.id)).filter((type) => type === 'payout.sent')).toHaveLength(1);
  });

  it('LEDGER "Groups": a group paid on one option, then on the other: the second transfer carries duplicate: true, is never swept, and stays at its address on chain', async () => {
    const otherMint = chain.otherMint;
    if (otherMint === undefined) throw new Error('the harness lists a second mint');
    const recipient = await newRecipient(chain);
    const shop = await liveSolanaShop(chain.app, recipient);
    const created = await chain.app.request({
      method: 'POST',
      url: `/api/v1/shops/${shop.shopId}/invoices`,
      headers: authed(shop.token, newIdempotencyKey()),
      payload: { assets: [{ chain_id: SOLANA_CHAIN_ID, token: chain.mint }, { chain_id: SOLANA_CHAIN_ID, token: otherMint }], amount: '12.5' },
    });
    expect(created.statusCode, created.body).toBe(202);
    const groupId = created.json<{ id: string }>().id;
    await allocationPasses(chain, async () => {
      const response = await chain.app.request({ method: 'GET', url: `/api/v1/shops/${shop.shopId}/issuances/${groupId}`, headers: authed(shop.token) });
      return response.json<{ options: Array<{ status: string }> }>().options.every((option) => option.status !== 'registering');
    });
    const [first, second] = await groupOptions(chain, shop, groupId);
    expect(first.address).not.toBe(second.address);

    await pay(chain, first.address, usd(12.5));
    await settle(chain);
    expect((await readIssuance(chain, shop, first.id)).status).toBe('settled');
    expect(await balanceOf(chain, recipient)).toBe(usd(12.5) - fee(usd(12.5)));
    expect(await balanceOf(chain, first.address)).toBe(0n);

    await pay(chain, second.address, usd(12.5), otherMint);
    await settle(chain);
    const confirmed = (await eventsOf(chain, second.id)).filter((event) => event.type === 'transfer.confirmed');
    expect(confirmed.map((event) => event.data.duplicate)).toEqual([true]);
    expect((await eventTypes(chain, second.id)).some((type) => type.startsWith('payout.'))).toBe(false);
    expect((await ledgerTransfers(chain, second.id)).map((row) => row.payout_id)).toEqual([null]);
    // On chain: the duplicate stays at the second option's address; the recipient got none of it.
    expect(await balanceOf(chain, second.address, otherMint)).toBe(usd(12.5));
    expect(await balanceOf(chain, recipient, otherMint)).toBe(0n);
    expect(await balanceOf(chain, recipient)).toBe(usd(12.5) - fee(usd(12.5)));
  });

  it('SPEC "What the service does", LEDGER "Invoices": a transfer after settlement (the token account still open) is late: counted in received, recorded, never swept; it stays at the address on chain', async () => {
    const recipient = await newRecipient(chain);
    const shop = await liveSolanaShop(chain.app, recipient);
    const { allocated: invoice } = await createSolanaInvoice(chain, shop, usd(10));
    await pay(chain, invoice.address, usd(10));
    await settle(chain);
    expect((await readIssuance(chain, shop, invoice.id)).status).toBe('settled');
    const eventsBefore = await eventTypes(chain, invoice.id);

    await pay(chain, invoice.address, usd(5));
    await settle(chain);
    const late = await readIssuance(chain, shop, invoice.id);
    expect(late.status).toBe('settled');
    expect(late.received).toBe(usd(15).toString());
    expect((await ledgerTransfers(chain, invoice.id)).map((row) => [row.amount, row.status, row.disposition, row.payout_id === null])).toEqual([
      [usd(10), 'confirmed', 'credited', false],
      [usd(5), 'confirmed', 'late', true],
    ]);
    // Only the late transfer's own events: no payout, no second close.
    expect((await eventTypes(chain, invoice.id)).slice(eventsBefore.length)).toEqual(['transfer.observed', 'transfer.confirmed']);
    expect(await balanceOf(chain, invoice.address)).toBe(usd(5));
    expect(await balanceOf(chain, recipient)).toBe(usd(10) - fee(usd(10)));
  });

  it('LEDGER "Cancellation and expiry": a cancelled invoice paid in full is credited and swept like any other, its payout events carrying invoice_cancelled: true; balances on chain', async () => {
    const recipient = await newRecipient(chain);
    const shop = await liveSolanaShop(chain.app, recipient);
    const { allocated: invoice } = await createSolanaInvoice(chain, shop, usd(20));
    const cancel = await chain.app.request({ method: 'POST', url: `/api/v1/shops/${shop.shopId}/invoices/${invoice.id}/cancel`, headers: authed(shop.token, newIdempotencyKey()) });
    expect(cancel.statusCode, cancel.body).toBe(200);
    const feeWalletBefore = await balanceOf(chain, chain.feeWallet);

    await pay(chain, invoice.address, usd(20));
    await settle(chain);
    const after = await readIssuance(chain, shop, invoice.id);
    // SPEC: cancel sets cancelled_at; the status still follows the table.
    expect(after.cancelled_at).not.toBeNull();
    expect(after.status).toBe('settled');
    expect(after.received).toBe(usd(20).toString());
    const payoutEvents = (await eventsOf(chain, invoice.id)).filter((event) => event.type.startsWith('payout.'));
    expect(payoutEvents.map((event) => event.type)).toEqual(['payout.sent', 'payout.confirmed']);
    for (const event of payoutEvents) expect(event.data.invoice_cancelled).toBe(true);
    expect(await balanceOf(chain, recipient)).toBe(usd(20) - fee(usd(20)));
    expect((await balanceOf(chain, chain.feeWallet)) - feeWalletBefore).toBe(fee(usd(20)));
    expect(await balanceOf(chain, invoice.address)).toBe(0n);
  });

  // Last: it replaces the shared harness's relayer.
  it('issue 24 item 4: an imported relayer key (a solana-keygen keypair file\'s bytes) pays the next sweep and the next token account', async () => {
    const seed = Uint8Array.from({ length: 32 }, (_, index) => 7 + index);
    const keygenFile = JSON.stringify([...seed, ...ed25519.getPublicKey(seed)]);
    const parsed = parseSolanaKeypair(keygenFile);
    if ('problem' in parsed) throw new Error(parsed.problem);
    const outcome = await importSolanaRelayerKey(chain.app.context.db, chain.app.context.secrets, chain.app.clock, SOLANA_CHAIN_ID, parsed.seed);
    expect(outcome).toEqual({ outcome: 'imported', relayer: { chainId: SOLANA_CHAIN_ID, address: base58.encode(ed25519.getPublicKey(seed)) } });
    const imported = await fundRelayer(chain, 1_000_000_000n);
    expect(imported).toBe(outcome.relayer.address);

    const recipient = await newRecipient(chain);
    const shop = await liveSolanaShop(chain.app, recipient);
    const { allocated: invoice } = await createSolanaInvoice(chain, shop, usd(8));
    const deposit = await findDepositAddress(chain.app.context.db, invoice.id);
    await pay(chain, invoice.address, usd(8));
    await settle(chain);
    const settled = await readIssuance(chain, shop, invoice.id);
    expect(settled.status).toBe('settled');
    expect(await balanceOf(chain, recipient)).toBe(usd(8) - fee(usd(8)));
    // Both transactions were paid by the imported key: it is each one's fee payer (first account).
    for (const signature of [deposit?.creation?.signature, settled.payout_tx_hash]) {
      const transaction = await chain.rpc.getTransaction(signature as never, { commitment: 'confirmed', encoding: 'json', maxSupportedTransactionVersion: 0 }).send();
      expect(transaction?.transaction.message.accountKeys[0]).toBe(imported);
    }
  });
});

/** The ledger's transfers of an issuance (the `transfers` table), largest first: rows written at one instant of the manual clock have no order of their own. */
async function ledgerTransfers(chain: SolanaHarness, issuanceId: string) {
  const rows = await chain.app.context.db.selectFrom('transfers').select(['amount', 'status', 'disposition', 'payout_id']).where('issuance_id', '=', issuanceId).execute();
  return rows.map((row) => ({ ...row, amount: BigInt(row.amount) })).sort((a, b) => (a.amount === b.amount ? 0 : a.amount > b.amount ? -1 : 1));
}

/** The group's options, once allocated (each its own deposit key and token account). */
async function groupOptions(chain: SolanaHarness, shop: { shopId: string; token: string }, groupId: string) {
  const response = await chain.app.request({ method: 'GET', url: `/api/v1/shops/${shop.shopId}/issuances/${groupId}`, headers: authed(shop.token) });
  const [first, second] = response.json<{ options: Array<{ id: string; address: string }> }>().options;
  if (first === undefined || second === undefined) throw new Error(`a group of two options: ${response.body}`);
  return [first, second] as const;
}

/** Pays while the node's slots stand still, then lets them reach `confirmed` only. */
async function payPaused(chain: SolanaHarness, owner: string, amount: bigint): Promise<string> {
  chain.node.resume();
  const signature = await pay(chain, owner, amount);
  chain.node.pause();
  return signature;
}
