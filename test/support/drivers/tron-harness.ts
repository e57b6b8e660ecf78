import { createPublicClient, http, parseEventLogs, type Address } from 'viem';
import type { ChainAdapter, TronAccess } from '../../../src/chains/index.js';
import { invoiceForwarderFactoryAbi } from '../../../src/chains/evm/contracts/index.js';
import type { IngestTables } from '../../../src/chains/ingest/index.js';
import { createTronApi } from '../../../src/chains/tron/tron-api.js';
import { createTronChainAdapter } from '../../../src/chains/tron/tron-driver.js';
import { tvmAddress } from '../../../src/chains/tron/tron-evm-address.js';
import { tronNetworkOf } from '../../../src/chains/tron/tron-network.js';
import { liveTronShop, mineAndSettleTron, newTronWallet, payTron, startTronHarness, tronAdminNetworks, tronBalanceOf, type TronHarness } from '../tron-chain.js';
import type { DriverHarness, HarnessInvoice, HarnessSpec, KillPoint, Payment } from './driver-harness.js';

const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };
const RELAYER_TRX = 2_000_000_000n;

/**
 * Tron on the local Tron node (devnets/tron-node): the app reads a catalogue
 * listing the network with its api_url, so the Tron driver builds the
 * adapter, the watcher over /jsonrpc and the payout tracker. Credit is at the
 * solidified block, which is final: a confirmed transfer cannot be taken
 * back, so the reversal cases do not apply (a rollback above the solidified
 * block is tested in test/chain/tron-lifecycle.test.ts).
 */
export const tronHarness: HarnessSpec = {
  name: 'Tron (local Tron node)',
  notApplicable: {
    reversal: 'Tron credits at the solidified block, which no rollback can undo; a transfer rolled back before that is never credited (tron-lifecycle)',
  },
  killPoints: ['after-sign', 'after-store', 'after-broadcast'],
  start: startTronDriverHarness,
};

async function startTronDriverHarness(): Promise<DriverHarness> {
  const overrides = new Map<number, ChainAdapter>();
  const chain = await startTronHarness({ liveChainAdapters: overrides });
  const db = chain.app.context.db;
  const [network] = await tronAdminNetworks(chain.app);
  const relayer = network?.relayer_address ?? '';
  const setRelayerTrx = async (sun: bigint) => {
    const current = await trxOf(chain, relayer);
    await chain.node.fund(relayer, sun - current);
  };
  await setRelayerTrx(RELAYER_TRX);
  const payments = new Map<string, { txId: string; blockNumber: bigint }>();
  // Enough blocks for the solidified head (2 behind) to pass what is pending, then one run of the jobs, as EVM's depth.
  const advance = () => mineAndSettleTron(chain, 3);

  return {
    family: 'tron',
    app: chain.app,
    chainId: chain.node.chainId,
    token: chain.token,
    addressPattern: /^T[1-9A-HJ-NP-Za-km-z]{33}$/,
    observesBeforeConfirming: true,
    onChain: {
      balanceOf: (holder) => tronBalanceOf(chain, holder),
      sweepsOf: (address) => sweepsOf(chain, address),
    },
    sender: {
      async killAt(point) {
        overrides.set(chain.node.chainId, dyingSender(chain, point));
      },
      async restart() {
        overrides.delete(chain.node.chainId);
      },
    },
    feePayer: {
      drain: () => setRelayerTrx(0n),
      fund: () => setRelayerTrx(RELAYER_TRX),
    },

    async newShop() {
      const recipient = newTronWallet();
      const shop = await liveTronShop(chain.app, recipient);
      return { shopId: shop.shopId, apiKey: shop.token, recipient };
    },

    async pay(invoice: HarnessInvoice, amount: bigint): Promise<Payment> {
      const txId = await payTron(chain, invoice.address, amount);
      const info = (await (await fetch(`${chain.node.url}/wallet/gettransactioninfobyid`, { method: 'POST', body: JSON.stringify({ value: txId }) })).json()) as { blockNumber: number };
      payments.set(txId, { txId, blockNumber: BigInt(info.blockNumber) });
      return { invoice, amount, handle: txId };
    },

    async seeAgain(payment) {
      const seen = payments.get(payment.handle);
      if (seen === undefined) throw new Error(`no payment ${payment.handle}`);
      const watcher = db.withTables<IngestTables>();
      await watcher.updateTable('chain_scan_cursors').set({ next_block: seen.blockNumber }).where('chain_id', '=', String(chain.node.chainId)).where('stream', '=', '').execute();
      const told = await watcher.updateTable('chain_transfers').set({ ledger_status: null, ledger_due: true }).where('tx_id', '=', seen.txId).executeTakeFirst();
      if (told.numUpdatedRows !== 1n) throw new Error(`the watcher holds no transfer ${seen.txId}`);
      await chain.app.jobs.drain();
      await advance();
      const after = await watcher.selectFrom('chain_transfers').select(['ledger_status', 'ledger_due']).where('tx_id', '=', seen.txId).executeTakeFirstOrThrow();
      const cursor = await watcher.selectFrom('chain_scan_cursors').select('next_block').where('chain_id', '=', String(chain.node.chainId)).where('stream', '=', '').executeTakeFirstOrThrow();
      if (after.ledger_due || after.ledger_status !== 'confirmed' || BigInt(cursor.next_block) <= seen.blockNumber) {
        throw new Error(`the payment was not seen again: ${JSON.stringify({ after, cursor })}`);
      }
    },

    advance,

    async reverse() {
      throw new Error('a solidified Tron transfer cannot be reversed');
    },

    async closeInvoice(invoice) {
      for (let round = 0; round < 8; round += 1) {
        await advance();
        const row = await db.selectFrom('issuances').select('status').where('id', '=', invoice.id).executeTakeFirstOrThrow();
        if (row.status === 'settled') return;
      }
    },

    async reset() {
      overrides.delete(chain.node.chainId);
      await setRelayerTrx(RELAYER_TRX);
    },

    close: () => chain.close(),
  };
}

async function trxOf(chain: TronHarness, address: string): Promise<bigint> {
  const answer = (await (await fetch(`${chain.node.url}/wallet/getaccount`, { method: 'POST', body: JSON.stringify({ address, visible: true }) })).json()) as { balance?: number };
  return BigInt(answer.balance ?? 0);
}

/** Successful sweeps of `address` on chain: the factories' `Swept` events naming it, read through the node's /jsonrpc. */
async function sweepsOf(chain: TronHarness, address: string): Promise<number> {
  const client = createPublicClient({ transport: http(`${chain.node.url}/jsonrpc`) });
  const logs = await client.getLogs({
    address: [tvmAddress(chain.contracts.mainFactory), tvmAddress(chain.contracts.invoiceFactory)] as Address[],
    fromBlock: BigInt(chain.contracts.startBlock),
    toBlock: 'latest',
  });
  const forwarder = tvmAddress(address).toLowerCase();
  return parseEventLogs({ abi: invoiceForwarderFactoryAbi, logs, eventName: 'Swept' }).filter((log) => log.args.forwarder.toLowerCase() === forwarder).length;
}

/** The network's payout sender that dies at `point`, as a killed process never finishes its call. */
function dyingSender(chain: TronHarness, point: KillPoint): ChainAdapter {
  const die = (): never => {
    throw new Error(`sender killed ${point}`);
  };
  const entry = chain.app.context.catalogue.network(chain.node.chainId);
  if (entry === undefined || entry.chain?.family !== 'tron') throw new Error('the Tron network is not in the catalogue');
  const network = tronNetworkOf(entry, entry.chain as TronAccess);
  const adapter = createTronChainAdapter({
    db: chain.app.context.db,
    secrets: chain.app.context.secrets,
    clock: chain.app.clock,
    log: silent,
    api: createTronApi(network.api),
    network,
    hooks: point === 'after-sign' ? { afterSign: async () => die() } : point === 'after-store' ? { afterStore: async () => die() } : {},
  });
  if (point !== 'after-broadcast') return adapter;
  return {
    name: adapter.name,
    allocateAddress: (request) => adapter.allocateAddress(request),
    async sendPayout(request) {
      await adapter.sendPayout?.(request);
      return die();
    },
  };
}
