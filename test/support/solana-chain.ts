import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { findAssociatedTokenPda, getCreateAssociatedTokenIdempotentInstruction, getTransferCheckedInstruction } from '@solana-program/token';
import { address as toAddress, createKeyPairSignerFromBytes, generateKeyPairSigner, type Address, type KeyPairSigner } from '@solana/kit';
import { startSolanaNode, TOKEN_PROGRAM, type SolanaNode } from '../../devnets/solana-node/index.js';
import { sendSigned, signTransaction, solanaRpc, waitConfirmed, type SolanaRpc } from '../../src/chains/solana/solana-rpc.js';
import { ManualClock } from '../../src/platform/clock.js';
import type { ChainAdapter } from '../../src/chains/index.js';
import { authed, createTestApp, newIdempotencyKey, type TestApp } from './app.js';
import { createApiKey, createMerchant, createSession, createShop, createUser } from './factories.js';

export const ADMIN_TOKEN = 'solana-test-admin-token-0123456789';
export const SOLANA_CHAIN_ID = 900;
/** Slot timing of the local node: fast enough for tests, with distinct confirmed and finalized lags. */
export const NODE_TIMING = { slotMs: 25, confirmedLag: 2, finalizedLag: 6, blockhashValidity: 20 } as const;

export interface SolanaHarness {
  readonly node: SolanaNode;
  readonly rpc: SolanaRpc;
  readonly app: TestApp;
  readonly mint: Address;
  /** A second mint of the same token program, listed after `mint` (`otherMint: true`), for groups of two options. */
  readonly otherMint: Address | undefined;
  readonly tokenProgram: Address;
  readonly payer: KeyPairSigner;
  readonly feeWallet: Address;
  close(): Promise<void>;
}

/**
 * A live Solana network on the local node (devnets/solana-node): a 6-decimal
 * mint (SPL Token, or Token-2022), and the real app reading a catalogue file
 * that lists the network with its rpc_url and fee_wallet, so the app runs its
 * own Solana driver (nothing in-process is faked).
 */
export async function startSolanaHarness(
  options: {
    tokenProgram?: Address;
    liveChainAdapters?: ReadonlyMap<number, ChainAdapter>;
    otherMint?: boolean;
    /** The node's slot timing (the tests' fast `NODE_TIMING` by default). */
    node?: { readonly slotMs?: number; readonly confirmedLag?: number; readonly finalizedLag?: number; readonly blockhashValidity?: number };
    /** Run the app's jobs in the background, as `serve` does (default: drained by hand). */
    runJobs?: boolean;
    /** The catalogue's `poll_interval_ms` (50 ms by default here); 'default' leaves it out, as an operator would. */
    pollIntervalMs?: number | 'default';
  } = {},
): Promise<SolanaHarness> {
  const node = await startSolanaNode({ ...NODE_TIMING, ...options.node });
  const tokenProgram = options.tokenProgram ?? (TOKEN_PROGRAM as Address);
  const { mint } = await node.createMint({ decimals: 6, tokenProgram });
  const otherMint = options.otherMint === true ? (await node.createMint({ decimals: 6, tokenProgram })).mint : undefined;
  const payer = await createKeyPairSignerFromBytes((node.accounts[0] as { secretKey: Uint8Array }).secretKey);
  const feeWallet = (await generateKeyPairSigner()).address;
  const directory = mkdtempSync(path.join(tmpdir(), 'ivory-solana-'));
  const file = path.join(directory, 'networks.json');
  writeFileSync(
    file,
    JSON.stringify({
      networks: [
        {
          chain_id: SOLANA_CHAIN_ID,
          name: 'Solana local',
          family: 'solana',
          native_symbol: 'SOL',
          explorer_url: 'http://localhost',
          main_factory: '',
          invoice_factory: '',
          start_block: 0,
          enabled: true,
          minimum_payment: '1',
          terms: {
            invoice: { bps: 50, minimum: '100000000000000000', maximum: '5000000000000000000' },
            deposit: { bps: 50, minimum: '100000000000000000', maximum: '5000000000000000000' },
            sweep_threshold: '10',
            minimum_sweep: '1',
            maximum_sweep: '100000',
          },
          tokens: [
            { address: mint, symbol: 'TUSD', decimals: 6, status: 'ready' },
            ...(otherMint === undefined ? [] : [{ address: otherMint, symbol: 'TUSDT', decimals: 6, status: 'ready' }]),
          ],
          rpc_url: node.url,
          fee_wallet: feeWallet,
          ...(options.pollIntervalMs === 'default' ? {} : { poll_interval_ms: options.pollIntervalMs ?? 50 }),
        },
      ],
    }),
  );
  const app = await createTestApp({ NETWORKS_FILE: file, ADMIN_TOKEN }, new ManualClock(new Date()), {
    ...(options.liveChainAdapters === undefined ? {} : { liveChainAdapters: options.liveChainAdapters }),
    ...(options.runJobs === true ? { runJobs: true } : {}),
  });
  return {
    node,
    rpc: solanaRpc(node.url),
    app,
    mint,
    otherMint,
    tokenProgram,
    payer,
    feeWallet,
    async close() {
      await app.close();
      await node.close();
    },
  };
}

/** GET /admin/v1/networks as the operator. */
export async function adminNetworks(app: TestApp) {
  const response = await app.request({ method: 'GET', url: '/admin/v1/networks', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  if (response.statusCode !== 200) throw new Error(`admin networks: ${response.statusCode} ${response.body}`);
  return response.json<Array<{ chain_id: number; relayer_address: string; relayer_balance: string | null; payouts_waiting_gas: number; head_block: number | null; last_scanned_block: number | null }>>();
}

/** Gives the relayer SOL (lamports) from the node's faucet; answers its address. */
export async function fundRelayer(harness: SolanaHarness, lamports = 1_000_000_000n): Promise<Address> {
  const network = (await adminNetworks(harness.app)).find((entry) => entry.chain_id === SOLANA_CHAIN_ID);
  if (network === undefined) throw new Error('no live Solana network on the admin endpoint');
  const relayer = toAddress(network.relayer_address);
  await harness.node.airdrop(relayer, lamports);
  await waitUntil(async () => (await harness.rpc.getBalance(relayer, { commitment: 'confirmed' }).send()).value >= lamports);
  return relayer;
}

/** A new wallet holding a token account for each of the harness's mints (SPEC: a recipient must hold one). */
export async function newRecipient(harness: SolanaHarness, withTokenAccount = true): Promise<Address> {
  const wallet = (await generateKeyPairSigner()).address;
  if (withTokenAccount) {
    for (const mint of [harness.mint, ...(harness.otherMint === undefined ? [] : [harness.otherMint])]) {
      const { signature } = await harness.node.mintTo({ mint, owner: wallet, amount: 0n });
      await waitConfirmed(harness.rpc, signature, 10_000);
    }
  }
  return wallet;
}

/** A live shop whose Solana recipient is `recipient`, with a read+write key. */
export async function liveSolanaShop(app: TestApp, recipient: string) {
  const user = await createUser(app.context.db);
  const session = await createSession(app.context.db, user.id);
  const merchant = await createMerchant(app.context.db, user.id);
  const shop = await createShop(app.context.db, merchant.id, { sandbox: false });
  await app.context.db.updateTable('shops').set({ solana_recipient: recipient }).where('id', '=', shop.id).execute();
  const key = await createApiKey(app.context.db, { id: shop.id, merchantId: merchant.id });
  return { shopId: shop.id, merchantId: merchant.id, token: key.token, session };
}

export async function tokenAccountOf(harness: SolanaHarness, owner: string, mint: Address = harness.mint): Promise<Address> {
  const [account] = await findAssociatedTokenPda({ owner: toAddress(owner), mint, tokenProgram: harness.tokenProgram });
  return account;
}

/** The payer mints `amount` and sends it with TransferChecked to `owner`'s token account: a real SPL transfer. Answers its signature (confirmed). */
export async function pay(harness: SolanaHarness, owner: string, amount: bigint, mint: Address = harness.mint): Promise<string> {
  const { tokenAccount: source, signature: minted } = await harness.node.mintTo({ mint, owner: harness.payer.address, amount });
  await waitConfirmed(harness.rpc, minted, 10_000);
  const destination = await tokenAccountOf(harness, owner, mint);
  // As wallets do: the recipient's associated token account is created when missing (paid by the payer).
  const signed = await signTransaction(harness.rpc, harness.payer, [
    getCreateAssociatedTokenIdempotentInstruction({ payer: harness.payer, ata: destination, owner: toAddress(owner), mint, tokenProgram: harness.tokenProgram }),
    getTransferCheckedInstruction({ source, mint, destination, authority: harness.payer, amount, decimals: 6 }, { programAddress: harness.tokenProgram }),
  ]);
  await sendSigned(harness.rpc, signed.wireBase64);
  await waitConfirmed(harness.rpc, signed.signature, 10_000);
  return signed.signature;
}

/** `owner`'s token balance of `mint` (its associated token account), at confirmed; 0 without an account. */
export async function balanceOf(harness: SolanaHarness, owner: string, mint: Address = harness.mint): Promise<bigint> {
  const account = await tokenAccountOf(harness, owner, mint);
  const { value } = await harness.rpc.getMultipleAccounts([account], { commitment: 'confirmed', encoding: 'base64' }).send();
  if (value[0] === null || value[0] === undefined) return 0n;
  const { value: balance } = await harness.rpc.getTokenAccountBalance(account, { commitment: 'confirmed' }).send();
  return BigInt(balance.amount);
}

export async function waitUntil(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Lets the node finalize what landed, then runs every job until nothing is due, `rounds` times. */
export async function settle(harness: SolanaHarness, rounds = 3): Promise<void> {
  for (let round = 0; round < rounds; round += 1) {
    const target = harness.node.slot() + BigInt(NODE_TIMING.finalizedLag + 1);
    await waitUntil(async () => harness.node.slot('finalized') >= target - BigInt(NODE_TIMING.finalizedLag) && harness.node.slot() >= target);
    harness.app.clock.advance(60_000);
    await harness.app.jobs.drain();
  }
}

/**
 * Runs the jobs until `done`: an allocation answers pending while its token account's creation
 * is on its way to `confirmed`, and is asked again a poll later (the manual clock moves a second
 * a round, the node's slots on their own).
 */
export async function allocationPasses(harness: SolanaHarness, done: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  await harness.app.jobs.drain();
  await waitUntil(async () => {
    if (await done()) return true;
    await new Promise((resolve) => setTimeout(resolve, NODE_TIMING.slotMs));
    harness.app.clock.advance(1_000);
    await harness.app.jobs.drain();
    return done();
  }, timeoutMs);
}

export async function createSolanaInvoice(harness: SolanaHarness, shop: { shopId: string; token: string }, amount: bigint) {
  const response = await harness.app.request({
    method: 'POST',
    url: `/api/v1/shops/${shop.shopId}/invoices`,
    headers: authed(shop.token, newIdempotencyKey()),
    payload: { chain_id: SOLANA_CHAIN_ID, token: harness.mint, amount: amount.toString() },
  });
  if (response.statusCode !== 202) throw new Error(`create live invoice: ${response.statusCode} ${response.body}`);
  const id = response.json<{ id: string }>().id;
  const created = await readIssuance(harness, shop, id);
  await allocationPasses(harness, async () => (await readIssuance(harness, shop, id)).status !== 'registering');
  return { created, allocated: await readIssuance(harness, shop, id) };
}

export async function createSolanaDeposit(harness: SolanaHarness, shop: { shopId: string; token: string }) {
  const response = await harness.app.request({
    method: 'POST',
    url: `/api/v1/shops/${shop.shopId}/deposits`,
    headers: authed(shop.token, newIdempotencyKey()),
    payload: { chain_id: SOLANA_CHAIN_ID, token: harness.mint },
  });
  if (response.statusCode !== 202) throw new Error(`create live deposit: ${response.statusCode} ${response.body}`);
  const id = response.json<{ id: string }>().id;
  await allocationPasses(harness, async () => (await readIssuance(harness, shop, id)).status !== 'registering');
  return readIssuance(harness, shop, id);
}

export async function readIssuance(harness: SolanaHarness, shop: { shopId: string; token: string }, id: string) {
  const response = await harness.app.request({ method: 'GET', url: `/api/v1/shops/${shop.shopId}/issuances/${id}`, headers: authed(shop.token) });
  if (response.statusCode !== 200) throw new Error(`read issuance: ${response.statusCode} ${response.body}`);
  return response.json<{ id: string; status: string; address: string; received: string; amount: string | null; payout_tx_hash: string | null; cancelled_at: string | null }>();
}

export async function eventsOf(harness: SolanaHarness, issuanceId: string): Promise<Array<{ type: string; data: Record<string, unknown> }>> {
  const rows = await harness.app.context.db.selectFrom('events').select(['envelope']).where('issuance_id', '=', issuanceId).orderBy('sequence').execute();
  return rows.map((row) => JSON.parse(row.envelope) as { type: string; data: Record<string, unknown> });
}

export async function eventTypes(harness: SolanaHarness, issuanceId: string): Promise<string[]> {
  return (await eventsOf(harness, issuanceId)).map((event) => event.type);
}
