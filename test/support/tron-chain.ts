import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { TronWeb } from 'tronweb';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { tronAddress } from '../../src/chains/tron/tron-evm-address.js';
import { deployTronContracts, type ChainAdapter } from '../../src/chains/index.js';
import { ManualClock } from '../../src/platform/clock.js';
import { startTronNode, type TronNode, type TronNodeOptions } from '../../devnets/tron-node/index.js';
import { authed, createTestApp, newIdempotencyKey, type TestApp } from './app.js';
import { createApiKey, createMerchant, createSession, createShop, createUser } from './factories.js';

export const TRON_ADMIN_TOKEN = 'tron-test-admin-token-0123456789';

interface Artifact {
  readonly abi: unknown[];
  readonly bytecode: string;
}
const artifact = (name: string): Artifact => JSON.parse(readFileSync(new URL(`../../contracts/artifacts/${name}.json`, import.meta.url), 'utf8')) as Artifact;

export interface TronHarness {
  readonly node: TronNode;
  readonly app: TestApp;
  /** A Tether-like TRC-20 (transfer returns false on success), 6 decimals. */
  readonly token: string;
  readonly otherToken: string;
  readonly feeWallet: string;
  readonly payer: { readonly address: string; readonly privateKey: string };
  readonly contracts: { readonly mainFactory: string; readonly invoiceFactory: string; readonly startBlock: number };
  close(): Promise<void>;
}

/**
 * A live Tron network on the local Tron node (devnets/tron-node): Ivory's TVM
 * factories deployed by the operator command's code path, a Tether-like token
 * and a second one, and the real app reading a catalogue file with the
 * network's api_url. Blocks come only from `mine` (the node is paused).
 */
export async function startTronHarness(
  options: {
    readonly confirmations?: number;
    readonly node?: TronNodeOptions;
    readonly env?: Record<string, string>;
    readonly liveChainAdapters?: ReadonlyMap<number, ChainAdapter>;
    /** Leave the node producing blocks on its timer (default: paused, blocks only from `mineBlock`). */
    readonly liveBlocks?: boolean;
    /** Run the app's jobs in the background, as `serve` does (default: drained by hand). */
    readonly runJobs?: boolean;
    /** The catalogue's `poll_interval_ms` (50 ms by default here); 'default' leaves it out, as an operator would. */
    readonly pollIntervalMs?: number | 'default';
  } = {},
): Promise<TronHarness> {
  const node = await startTronNode({ blockMs: 100, solidLag: 2, ...options.node });
  const [deployer, feeWallet, payer] = node.accounts;
  if (deployer === undefined || feeWallet === undefined || payer === undefined) throw new Error('the node has too few accounts');
  const contracts = await deployTronContracts({ apiUrl: node.url, privateKey: `0x${deployer.privateKey}`, feeWallet: feeWallet.address, timeoutMs: 30_000 });
  const token = await deployToken(node, deployer.privateKey, 'FalseOnSuccessToken');
  const otherToken = await deployToken(node, deployer.privateKey, 'TestStablecoin');
  if (options.liveBlocks !== true) node.pause();
  const directory = mkdtempSync(path.join(tmpdir(), 'ivory-tron-'));
  const file = path.join(directory, 'networks.json');
  writeFileSync(
    file,
    JSON.stringify({
      networks: [
        {
          chain_id: node.chainId,
          name: 'Tron local',
          family: 'tron',
          native_symbol: 'TRX',
          explorer_url: 'https://nile.tronscan.org',
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
            { address: token, symbol: 'USDT', decimals: 6, status: 'ready' },
            { address: otherToken, symbol: 'TUSD', decimals: 6, status: 'ready' },
          ],
          api_url: node.url,
          confirmations: options.confirmations ?? 0,
          ...(options.pollIntervalMs === 'default' ? {} : { poll_interval_ms: options.pollIntervalMs ?? 50 }),
        },
      ],
    }),
  );
  const app = await createTestApp(
    { NETWORKS_FILE: file, ADMIN_TOKEN: TRON_ADMIN_TOKEN, ...options.env },
    new ManualClock(new Date()),
    { ...(options.liveChainAdapters === undefined ? {} : { liveChainAdapters: options.liveChainAdapters }), ...(options.runJobs === true ? { runJobs: true } : {}) },
  );
  return {
    node,
    app,
    token,
    otherToken,
    feeWallet: feeWallet.address,
    payer,
    contracts,
    async close() {
      await app.close();
      await node.close();
    },
  };
}

/** Deploys a compiled test token with tronweb (as any Tron developer would) and waits for it. */
async function deployToken(node: TronNode, privateKey: string, name: string): Promise<string> {
  const tronWeb = new TronWeb({ fullHost: node.url, privateKey });
  const { abi, bytecode } = artifact(name);
  const unsigned = await tronWeb.transactionBuilder.createSmartContract(
    { abi: abi as never, bytecode: bytecode.slice(2), feeLimit: 5_000_000_000, callValue: 0, userFeePercentage: 100, originEnergyLimit: 10_000_000 },
    tronWeb.defaultAddress.base58 as string,
  );
  const signed = await tronWeb.trx.sign(unsigned as never, privateKey);
  const sent = await tronWeb.trx.sendRawTransaction(signed as never);
  if (!(sent as { result?: boolean }).result) throw new Error(`token deployment refused: ${JSON.stringify(sent)}`);
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const info = (await tronWeb.trx.getTransactionInfo((unsigned as { txID: string }).txID)) as { contract_address?: string };
    if (info.contract_address !== undefined) return TronWeb.address.fromHex(info.contract_address) as string;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`token ${name} not deployed`);
}

/** Calls `signature` on `contract` from the account of `privateKey`; the transaction is in the pool until the next block. */
export async function send(node: TronNode, privateKey: string, contract: string, signature: string, parameters: { type: string; value: unknown }[]): Promise<string> {
  const tronWeb = new TronWeb({ fullHost: node.url, privateKey });
  const built = await tronWeb.transactionBuilder.triggerSmartContract(contract, signature, { feeLimit: 100_000_000 }, parameters, tronWeb.defaultAddress.base58 as string);
  const signed = await tronWeb.trx.sign(built.transaction as never, privateKey);
  const sent = (await tronWeb.trx.sendRawTransaction(signed as never)) as { result?: boolean; code?: string };
  if (sent.result !== true) throw new Error(`${signature} refused: ${JSON.stringify(sent)}`);
  return built.transaction.txID;
}

/** The payer mints `amount` of `token` and transfers it to `to`, each in its own block: a real TRC-20 Transfer. */
export async function payTron(harness: TronHarness, to: string, amount: bigint, token = harness.token): Promise<string> {
  const { node, payer } = harness;
  // A fresh head first: the node sets a transaction's expiration from the head block's time.
  await node.mineBlock();
  await send(node, payer.privateKey, token, 'mint(address,uint256)', [
    { type: 'address', value: payer.address },
    { type: 'uint256', value: amount.toString() },
  ]);
  await node.mineBlock();
  const txId = await send(node, payer.privateKey, token, 'transfer(address,uint256)', [
    { type: 'address', value: to },
    { type: 'uint256', value: amount.toString() },
  ]);
  await node.mineBlock();
  return txId;
}

export async function tronBalanceOf(harness: TronHarness, holder: string, token = harness.token): Promise<bigint> {
  const tronWeb = new TronWeb({ fullHost: harness.node.url, privateKey: harness.payer.privateKey });
  const answer = (await tronWeb.transactionBuilder.triggerConstantContract(token, 'balanceOf(address)', {}, [{ type: 'address', value: holder }], harness.payer.address)) as {
    constant_result?: string[];
  };
  return BigInt(`0x${answer.constant_result?.[0] ?? '0'}`);
}

/** Mines `blocks` blocks, then lets every job run until nothing is due. */
export async function mineAndSettleTron(harness: TronHarness, blocks = 1): Promise<void> {
  for (let block = 0; block < blocks; block += 1) await harness.node.mineBlock();
  harness.app.clock.advance(60_000);
  await harness.app.jobs.drain();
}

/** Enough blocks for a transfer or a sweep to be solidified, with the jobs run between them. */
export async function solidifyTron(harness: TronHarness, rounds = 4): Promise<void> {
  for (let round = 0; round < rounds; round += 1) await mineAndSettleTron(harness, 1);
}

/** A fresh Tron wallet address (`T…`) nobody has used: a recipient whose balances start at zero. */
export function newTronWallet(): string {
  return tronAddress(privateKeyToAccount(generatePrivateKey()).address);
}

/** A live shop whose Tron recipient is `recipient`, the merchant opted into Tron, with a read+write key. */
export async function liveTronShop(app: TestApp, recipient: string) {
  const user = await createUser(app.context.db);
  const session = await createSession(app.context.db, user.id);
  const merchant = await createMerchant(app.context.db, user.id);
  // The operator switches Tron on for the merchant (SPEC: merchant_network_disabled until then).
  const enabled = await app.request({
    method: 'PATCH',
    url: `/admin/v1/merchants/${merchant.id}/payout-setup`,
    headers: { authorization: `Bearer ${TRON_ADMIN_TOKEN}` },
    payload: { tron_enabled: true },
  });
  if (enabled.statusCode !== 200) throw new Error(`tron_enabled: ${enabled.statusCode} ${enabled.body}`);
  const shop = await createShop(app.context.db, merchant.id, { sandbox: false });
  await app.context.db.updateTable('shops').set({ tron_recipient: recipient }).where('id', '=', shop.id).execute();
  const key = await createApiKey(app.context.db, { id: shop.id, merchantId: merchant.id });
  return { shopId: shop.id, merchantId: merchant.id, token: key.token, session };
}

export async function tronAdminNetworks(app: TestApp) {
  const response = await app.request({ method: 'GET', url: '/admin/v1/networks', headers: { authorization: `Bearer ${TRON_ADMIN_TOKEN}` } });
  if (response.statusCode !== 200) throw new Error(`admin networks: ${response.statusCode} ${response.body}`);
  return response.json<Array<{ chain_id: number; relayer_address: string; relayer_balance: string | null; relayer_energy?: number | null; payouts_waiting_gas: number; head_block: number | null; last_scanned_block: number | null }>>();
}

export async function createTronInvoice(harness: TronHarness, shop: { shopId: string; token: string }, amount: bigint, extra: Record<string, unknown> = {}) {
  const response = await harness.app.request({
    method: 'POST',
    url: `/api/v1/shops/${shop.shopId}/invoices`,
    headers: authed(shop.token, newIdempotencyKey()),
    payload: { chain_id: harness.node.chainId, token: harness.token, amount: amount.toString(), ...extra },
  });
  if (response.statusCode !== 202) throw new Error(`create live Tron invoice: ${response.statusCode} ${response.body}`);
  await harness.app.jobs.drain();
  return readTronIssuance(harness, shop, response.json<{ id: string }>().id);
}

export async function createTronDeposit(harness: TronHarness, shop: { shopId: string; token: string }) {
  const response = await harness.app.request({
    method: 'POST',
    url: `/api/v1/shops/${shop.shopId}/deposits`,
    headers: authed(shop.token, newIdempotencyKey()),
    payload: { chain_id: harness.node.chainId, token: harness.token },
  });
  if (response.statusCode !== 202) throw new Error(`create live Tron deposit: ${response.statusCode} ${response.body}`);
  await harness.app.jobs.drain();
  return readTronIssuance(harness, shop, response.json<{ id: string }>().id);
}

export async function readTronIssuance(harness: TronHarness, shop: { shopId: string; token: string }, id: string) {
  const response = await harness.app.request({ method: 'GET', url: `/api/v1/shops/${shop.shopId}/issuances/${id}`, headers: authed(shop.token) });
  if (response.statusCode !== 200) throw new Error(`read issuance: ${response.statusCode} ${response.body}`);
  return response.json<{ id: string; public_id: string; status: string; address: string; received: string; amount: string | null; payout_tx_hash: string | null }>();
}
