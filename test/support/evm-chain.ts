import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { erc20Abi, parseAbi, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { ChainAdapter } from '../../src/chains/index.js';
import { deployContracts, deployTestStablecoin, type DeployedContracts } from '../../src/chains/evm/contracts/index.js';
import { ManualClock } from '../../src/platform/clock.js';
import { ANVIL_KEYS, startAnvil, type Anvil } from './anvil.js';
import { authed, createTestApp, newIdempotencyKey, type TestApp } from './app.js';
import { createApiKey, createMerchant, createSession, createShop, createUser } from './factories.js';

export const ADMIN_TOKEN = 'chain-test-admin-token-0123456789';
export const FEE_WALLET = privateKeyToAccount(ANVIL_KEYS[1]).address;
const DEPLOYER_KEY = ANVIL_KEYS[0];
const PAYER_KEY = ANVIL_KEYS[4];
const mintAbi = parseAbi(['function mint(address to, uint256 amount)']);

export interface ChainHarness {
  readonly anvil: Anvil;
  readonly app: TestApp;
  readonly token: Address;
  /** A second catalogue token on the same network (not the issuance's). */
  readonly otherToken: Address;
  readonly contracts: DeployedContracts;
  readonly confirmations: number;
  close(): Promise<void>;
}

/**
 * A live EVM network on a real anvil node: a 6-decimal test stablecoin (and a
 * second one), Ivory's factories, and the real app reading a catalogue file
 * that lists the network with its rpc_url, so the app builds its own EVM
 * adapter, watcher and payout tracker (nothing in-process is faked).
 */
export async function startChainHarness(
  options: {
    confirmations?: number;
    chainId?: number;
    env?: Record<string, string>;
    /** Adapters consulted before the app's own (by chain id, read at each call): a test swaps in a sender that dies. */
    liveChainAdapters?: ReadonlyMap<number, ChainAdapter>;
    /** The node addresses the catalogue lists (default: anvil's own): a test puts faulty hops in between. */
    rpcUrls?: (anvil: Anvil) => Promise<readonly string[]>;
    /** More of the network's catalogue entry, made once anvil runs: tokens the test deploys, network fields. */
    catalogueExtras?: (anvil: Anvil) => Promise<{ readonly tokens?: readonly Record<string, unknown>[]; readonly network?: Record<string, unknown> }>;
  } = {},
): Promise<ChainHarness> {
  const confirmations = options.confirmations ?? 2;
  const anvil = await startAnvil({ chainId: options.chainId ?? 31337 });
  const token = await deployTestStablecoin({ rpcUrl: anvil.rpcUrl, privateKey: DEPLOYER_KEY });
  const otherToken = await deployTestStablecoin({ rpcUrl: anvil.rpcUrl, privateKey: DEPLOYER_KEY });
  const contracts = await deployContracts({ rpcUrl: anvil.rpcUrl, privateKey: DEPLOYER_KEY, feeWallet: FEE_WALLET });
  const extras = options.catalogueExtras === undefined ? {} : await options.catalogueExtras(anvil);
  const directory = mkdtempSync(path.join(tmpdir(), 'ivory-chain-'));
  const file = path.join(directory, 'networks.json');
  writeFileSync(
    file,
    JSON.stringify({
      networks: [
        {
          chain_id: anvil.chainId,
          name: 'Anvil',
          family: 'evm',
          native_symbol: 'ETH',
          explorer_url: 'http://localhost',
          main_factory: contracts.mainFactory,
          invoice_factory: contracts.invoiceFactory,
          start_block: contracts.startBlock,
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
            { address: token, symbol: 'TUSD', decimals: 6, status: 'ready' },
            { address: otherToken, symbol: 'OUSD', decimals: 6, status: 'ready' },
            ...(extras.tokens ?? []),
          ],
          ...(options.rpcUrls === undefined ? { rpc_url: anvil.rpcUrl } : { rpc_urls: await options.rpcUrls(anvil) }),
          confirmations,
          poll_interval_ms: 50,
          ...extras.network,
        },
      ],
    }),
  );
  const app = await createTestApp(
    { NETWORKS_FILE: file, ADMIN_TOKEN, ...options.env },
    new ManualClock(new Date()),
    options.liveChainAdapters === undefined ? {} : { liveChainAdapters: options.liveChainAdapters },
  );
  return {
    anvil,
    app,
    token,
    otherToken,
    contracts,
    confirmations,
    async close() {
      await app.close();
      await anvil.stop();
    },
  };
}

/** A live shop paying `recipient`, with a read+write key. */
export async function liveShop(app: TestApp, recipient: Address, delegate: Address | null = null) {
  const user = await createUser(app.context.db);
  const session = await createSession(app.context.db, user.id);
  const merchant = await createMerchant(app.context.db, user.id);
  const shop = await createShop(app.context.db, merchant.id, { sandbox: false, recipient });
  if (delegate !== null) await app.context.db.updateTable('shops').set({ delegate }).where('id', '=', shop.id).execute();
  const key = await createApiKey(app.context.db, { id: shop.id, merchantId: merchant.id });
  return { shopId: shop.id, merchantId: merchant.id, token: key.token, session };
}

/** GET /admin/v1/networks as the operator. */
export async function adminNetworks(app: TestApp) {
  const response = await app.request({ method: 'GET', url: '/admin/v1/networks', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  if (response.statusCode !== 200) throw new Error(`admin networks: ${response.statusCode} ${response.body}`);
  return response.json<Array<{ chain_id: number; relayer_address: string; relayer_balance: string | null; head_block: number | null; last_scanned_block: number | null }>>();
}

/** Gives the relayer of the harness's network native coin for gas. */
export async function fundRelayer(harness: ChainHarness, wei = 10n ** 18n): Promise<Address> {
  const [network] = await adminNetworks(harness.app);
  if (network === undefined) throw new Error('no live network on the admin endpoint');
  const relayer = network.relayer_address as Address;
  await harness.anvil.client.setBalance({ address: relayer, value: wei });
  return relayer;
}

/** The payer mints `amount` base units of `token` and transfers them to `to`: a real ERC-20 Transfer. */
export async function pay(harness: ChainHarness, to: string, amount: bigint, token: Address = harness.token): Promise<Hex> {
  const payer = privateKeyToAccount(PAYER_KEY);
  const client = harness.anvil.client;
  await client.waitForTransactionReceipt({ hash: await client.writeContract({ account: payer, chain: harness.anvil.chain, address: token, abi: mintAbi, functionName: 'mint', args: [payer.address, amount] }) });
  const hash = await client.writeContract({ account: payer, chain: harness.anvil.chain, address: token, abi: erc20Abi, functionName: 'transfer', args: [to as Address, amount] });
  await client.waitForTransactionReceipt({ hash });
  return hash;
}

export async function balanceOf(harness: ChainHarness, holder: string, token: Address = harness.token): Promise<bigint> {
  return harness.anvil.client.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [holder as Address] });
}

/** Mines `blocks` blocks and lets every job run until nothing is due. */
export async function mineAndSettle(harness: ChainHarness, blocks = harness.confirmations): Promise<void> {
  if (blocks > 0) await harness.anvil.client.mine({ blocks });
  harness.app.clock.advance(60_000);
  await harness.app.jobs.drain();
}

/** Lets the jobs run until nothing is due, mining a block between rounds, `rounds` times. */
export async function settle(harness: ChainHarness, rounds = 4): Promise<void> {
  for (let round = 0; round < rounds; round += 1) await mineAndSettle(harness, round === 0 ? 0 : 1);
}

export async function createLiveInvoice(harness: ChainHarness, shop: { shopId: string; token: string }, amount: bigint, extra: Record<string, unknown> = {}) {
  const response = await harness.app.request({
    method: 'POST',
    url: `/api/v1/shops/${shop.shopId}/invoices`,
    headers: authed(shop.token, newIdempotencyKey()),
    payload: { chain_id: harness.anvil.chainId, token: harness.token, amount: amount.toString(), ...extra },
  });
  if (response.statusCode !== 202) throw new Error(`create live invoice: ${response.statusCode} ${response.body}`);
  await harness.app.jobs.drain();
  return readIssuance(harness, shop, response.json<{ id: string }>().id);
}

export async function createLiveDeposit(harness: ChainHarness, shop: { shopId: string; token: string }) {
  const response = await harness.app.request({
    method: 'POST',
    url: `/api/v1/shops/${shop.shopId}/deposits`,
    headers: authed(shop.token, newIdempotencyKey()),
    payload: { chain_id: harness.anvil.chainId, token: harness.token },
  });
  if (response.statusCode !== 202) throw new Error(`create live deposit: ${response.statusCode} ${response.body}`);
  await harness.app.jobs.drain();
  return readIssuance(harness, shop, response.json<{ id: string }>().id);
}

export async function readIssuance(harness: ChainHarness, shop: { shopId: string; token: string }, id: string) {
  const response = await harness.app.request({ method: 'GET', url: `/api/v1/shops/${shop.shopId}/issuances/${id}`, headers: authed(shop.token) });
  if (response.statusCode !== 200) throw new Error(`read issuance: ${response.statusCode} ${response.body}`);
  return response.json<{ id: string; status: string; address: string; received: string; amount: string | null; payout_tx_hash: string | null; cancelled_at: string | null }>();
}

export interface EventEnvelope {
  readonly id: string;
  readonly type: string;
  readonly data: Record<string, unknown>;
}

/** The events of an issuance, in the order they were written. */
export async function eventsOf(harness: ChainHarness, issuanceId: string): Promise<EventEnvelope[]> {
  const rows = await harness.app.context.db.selectFrom('events').select(['envelope']).where('issuance_id', '=', issuanceId).orderBy('sequence').execute();
  return rows.map((row) => JSON.parse(row.envelope) as EventEnvelope);
}

export async function eventTypes(harness: ChainHarness, issuanceId: string): Promise<string[]> {
  return (await eventsOf(harness, issuanceId)).map((event) => event.type);
}
