import { parseEventLogs, type Hex } from 'viem';
import { privateKeyToAccount, generatePrivateKey } from 'viem/accounts';
import type { ChainAdapter } from '../../../src/chains/index.js';
import { invoiceForwarderFactoryAbi } from '../../../src/chains/evm/contracts/index.js';
import { createEvmChainAdapter } from '../../../src/chains/evm/evm-adapter.js';
import type { EvmNetwork } from '../../../src/chains/evm/evm-network.js';
import type { SigningHooks } from '../../../src/chains/evm/payouts/index.js';
import type { IngestTables } from '../../../src/chains/ingest/index.js';
import { FEE_WALLET, balanceOf, fundRelayer, liveShop, mineAndSettle, pay, startChainHarness, type ChainHarness } from '../evm-chain.js';
import { sweepLedger } from '../evm-ledger.js';
import type { DriverHarness, HarnessInvoice, HarnessSpec, KillPoint, Payment } from './driver-harness.js';

const CONFIRMATIONS = 2;
const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };

/**
 * EVM on a real anvil node (test/support/evm-chain.ts): the app reads a
 * catalogue listing the network with its rpc_url, so its own composition
 * (`startEvmChains` today) builds the adapter, the watcher and the payout
 * tracker; the suite drives them through `app.jobs.drain()`.
 *
 * The one place that reaches past the public seam is `dyingSender`: a sender
 * that dies at a named point is an EVM adapter built with signing hooks
 * (`createEvmChainAdapter`), served before the app's own through the app's
 * `liveChainAdapters`. When the family-driver registry lands, only it changes
 * (a driver started with hooks); "restart" stays "serve the app's own again".
 */
export const evmHarness: HarnessSpec = {
  name: 'EVM (anvil)',
  notApplicable: {},
  killPoints: ['after-sign', 'after-store', 'after-broadcast'],
  start: startEvmHarness,
};

async function startEvmHarness(): Promise<DriverHarness> {
  const overrides = new Map<number, ChainAdapter>();
  const chain = await startChainHarness({ confirmations: CONFIRMATIONS, chainId: 31_400, liveChainAdapters: overrides });
  await fundRelayer(chain);
  const db = chain.app.context.db;
  const payments = new Map<string, { txHash: Hex; blockNumber: bigint; snapshot: Hex }>();

  const advance = () => mineAndSettle(chain);

  const harness: DriverHarness = {
    family: 'evm',
    app: chain.app,
    chainId: chain.anvil.chainId,
    token: chain.token,
    addressPattern: /^0x[0-9a-fA-F]{40}$/,
    observesBeforeConfirming: true,
    onChain: {
      balanceOf: (holder) => balanceOf(chain, holder),
      sweepsOf: (address) => sweepsOf(chain, address),
    },
    sender: {
      async killAt(point) {
        overrides.set(chain.anvil.chainId, dyingSender(chain, point));
      },
      async restart() {
        overrides.delete(chain.anvil.chainId);
      },
    },
    feePayer: {
      async drain() {
        await fundRelayer(chain, 0n);
      },
      async fund() {
        await fundRelayer(chain);
      },
    },

    async newShop() {
      const recipient = privateKeyToAccount(generatePrivateKey()).address;
      const shop = await liveShop(chain.app, recipient);
      return { shopId: shop.shopId, apiKey: shop.token, recipient };
    },

    async pay(invoice: HarnessInvoice, amount: bigint): Promise<Payment> {
      // Taken before the transfer: `reverse` reorgs back to here.
      const snapshot = await chain.anvil.client.snapshot();
      const txHash = await pay(chain, invoice.address, amount);
      const { blockNumber } = await chain.anvil.client.getTransactionReceipt({ hash: txHash });
      payments.set(txHash, { txHash, blockNumber, snapshot });
      return { invoice, amount, handle: txHash };
    },

    async seeAgain(payment) {
      const seen = payments.get(payment.handle);
      if (seen === undefined) throw new Error(`no payment ${payment.handle}`);
      // A re-scan from the payment's block, and its reports to the ledger repeated from the
      // start (as if the watcher died after telling the ledger, before noting it had).
      const watcher = db.withTables<IngestTables>();
      await watcher.updateTable('chain_scan_cursors').set({ next_block: seen.blockNumber }).where('chain_id', '=', String(chain.anvil.chainId)).where('stream', '=', '').execute();
      const told = await watcher.updateTable('chain_transfers').set({ ledger_status: null, ledger_due: true }).where('tx_id', '=', seen.txHash).executeTakeFirst();
      if (told.numUpdatedRows !== 1n) throw new Error(`the watcher holds no transfer ${seen.txHash}`);
      await chain.app.jobs.drain();
      await advance();
      // The rewind took effect: the range was scanned again and the ledger told again.
      const after = await watcher.selectFrom('chain_transfers').select(['ledger_status', 'ledger_due']).where('tx_id', '=', seen.txHash).executeTakeFirstOrThrow();
      const cursor = await watcher.selectFrom('chain_scan_cursors').select('next_block').where('chain_id', '=', String(chain.anvil.chainId)).where('stream', '=', '').executeTakeFirstOrThrow();
      if (after.ledger_due || after.ledger_status !== 'confirmed' || BigInt(cursor.next_block) <= seen.blockNumber) {
        throw new Error(`the payment was not seen again: ${JSON.stringify({ after, cursor })}`);
      }
    },

    advance,

    async reverse(payment) {
      const seen = payments.get(payment.handle);
      if (seen === undefined) throw new Error(`no payment ${payment.handle}`);
      // A reorg deeper than the confirmation depth: a longer chain without the transfer.
      await chain.anvil.client.revert({ id: seen.snapshot });
      await chain.anvil.client.mine({ blocks: CONFIRMATIONS + 4 });
      await advance();
      await advance();
    },

    async closeInvoice(invoice) {
      // The sweep is sent at confirmation, confirmed at its own depth; the invoice closes with it.
      for (let round = 0; round < 8; round += 1) {
        await advance();
        const row = await db.selectFrom('issuances').select('status').where('id', '=', invoice.id).executeTakeFirstOrThrow();
        if (row.status === 'settled') return;
      }
    },

    async reset() {
      overrides.delete(chain.anvil.chainId);
      await fundRelayer(chain);
    },

    close: () => chain.close(),
  };
  return harness;
}

/** Successful sweeps of `address` on chain: the factories' `Swept` events naming it. */
async function sweepsOf(chain: ChainHarness, address: string): Promise<number> {
  const logs = await chain.anvil.client.getLogs({
    address: [chain.contracts.mainFactory, chain.contracts.invoiceFactory],
    fromBlock: BigInt(chain.contracts.startBlock),
    toBlock: 'latest',
  });
  return parseEventLogs({ abi: invoiceForwarderFactoryAbi, logs, eventName: 'Swept' }).filter((log) => log.args.forwarder.toLowerCase() === address.toLowerCase()).length;
}

/**
 * The network's payout sender that dies at `point`: it throws there, the way
 * a killed process never finishes (the payout worker records nothing of the
 * call but a failed attempt, like a lease that ran out).
 */
function dyingSender(chain: ChainHarness, point: KillPoint): ChainAdapter {
  const die = (): never => {
    throw new Error(`sender killed ${point}`);
  };
  const hooks: SigningHooks = point === 'after-sign' ? { afterSign: die } : point === 'after-store' ? { afterCommit: die } : {};
  const adapter = createEvmChainAdapter({
    db: chain.app.context.db,
    secrets: chain.app.context.secrets,
    clock: chain.app.clock,
    network: evmNetwork(chain),
    log: silent,
    ledger: sweepLedger,
    hooks,
  });
  if (point !== 'after-broadcast') return adapter;
  return {
    name: adapter.name,
    allocateAddress: (request) => adapter.allocateAddress(request),
    async sendPayout(request) {
      await adapter.sendPayout(request);
      return die();
    },
  };
}

/** The network as the catalogue entry of `startChainHarness` describes it. */
function evmNetwork(chain: ChainHarness): EvmNetwork {
  return {
    chainId: chain.anvil.chainId,
    rpcUrl: chain.anvil.rpcUrl,
    confirmations: chain.confirmations,
    mainFactory: chain.contracts.mainFactory,
    invoiceFactory: chain.contracts.invoiceFactory,
    startBlock: BigInt(chain.contracts.startBlock),
    feeWallet: FEE_WALLET,
    tokens: [
      { address: chain.token, symbol: 'TUSD', decimals: 6, minimumSweep: 1_000_000n },
      { address: chain.otherToken, symbol: 'OUSD', decimals: 6, minimumSweep: 1_000_000n },
    ],
    pollIntervalMs: 50,
    maxBlockRange: 1_000,
    useFinalizedTag: false,
  };
}
