import { getTransferSolInstruction } from '@solana-program/system';
import { address as toAddress, lamports as toLamports } from '@solana/kit';
import type { ChainAdapter } from '../../../src/chains/index.js';
import { allocateDepositAddress } from '../../../src/chains/solana/allocate-deposit-address.js';
import { sendSolanaPayout } from '../../../src/chains/solana/payouts/send-solana-payout.js';
import { solanaRelayerKey } from '../../../src/chains/solana/solana-keys.js';
import { solanaNetworkOf } from '../../../src/chains/solana/solana-network.js';
import { sendSigned, signTransaction, signerOf, waitConfirmed } from '../../../src/chains/solana/solana-rpc.js';
import type { IngestTables } from '../../../src/chains/ingest/index.js';
import {
  SOLANA_CHAIN_ID,
  adminNetworks,
  balanceOf,
  fundRelayer,
  liveSolanaShop,
  newRecipient,
  pay,
  settle,
  startSolanaHarness,
  tokenAccountOf,
  waitUntil,
  type SolanaHarness,
} from '../solana-chain.js';
import type { DriverHarness, HarnessSpec, KillPoint } from './driver-harness.js';

const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };

/**
 * Solana on the local node (devnets/solana-node): the app reads a catalogue
 * listing the network with its rpc_url and fee_wallet and runs its own Solana
 * driver. A sender that dies at a named point is the driver's own sender
 * with signing hooks, served before the app's adapter through `liveChainAdapters`.
 */
export const solanaHarness: HarnessSpec = {
  name: 'Solana (local node)',
  notApplicable: {
    reversal:
      'Solana credits at finalized, which no rollback can undo; a rollback before finalized un-credits nothing it never credited (solana-lifecycle.test.ts)',
  },
  killPoints: ['after-sign', 'after-store', 'after-broadcast'],
  start: startHarness,
};

async function startHarness(): Promise<DriverHarness> {
  const overrides = new Map<number, ChainAdapter>();
  const chain = await startSolanaHarness({ liveChainAdapters: overrides });
  await fundRelayer(chain);
  const db = chain.app.context.db;
  const advance = () => settle(chain, 1);

  return {
    family: 'solana',
    app: chain.app,
    chainId: SOLANA_CHAIN_ID,
    token: chain.mint,
    addressPattern: /^[1-9A-HJ-NP-Za-km-z]{32,44}$/,
    observesBeforeConfirming: true,
    onChain: {
      balanceOf: (holder) => balanceOf(chain, holder),
      sweepsOf: (address) => sweepsOf(chain, address),
    },
    sender: {
      async killAt(point) {
        overrides.set(SOLANA_CHAIN_ID, dyingSender(chain, point));
      },
      async restart() {
        overrides.delete(SOLANA_CHAIN_ID);
      },
    },
    feePayer: {
      drain: () => drainRelayer(chain),
      async fund() {
        await fundRelayer(chain);
      },
    },
    async newShop() {
      const recipient = await newRecipient(chain);
      const shop = await liveSolanaShop(chain.app, recipient);
      return { shopId: shop.shopId, apiKey: shop.token, recipient };
    },
    async pay(invoice, amount) {
      return { invoice, amount, handle: await pay(chain, invoice.address, amount) };
    },
    async seeAgain(payment) {
      // Read again from the start of the address's history, and the ledger told again from the start.
      const ingest = db.withTables<IngestTables>();
      const stream = await tokenAccountOf(chain, payment.invoice.address);
      await ingest.updateTable('chain_scan_cursors').set({ after_id: null }).where('chain_id', '=', String(SOLANA_CHAIN_ID)).where('stream', '=', stream).execute();
      const told = await ingest.updateTable('chain_transfers').set({ ledger_status: null, ledger_due: true }).where('tx_id', '=', payment.handle).executeTakeFirst();
      if (told.numUpdatedRows !== 1n) throw new Error(`the watcher holds no transfer ${payment.handle}`);
      await chain.app.jobs.drain();
      await advance();
      const after = await ingest.selectFrom('chain_transfers').select(['ledger_status', 'ledger_due']).where('tx_id', '=', payment.handle).executeTakeFirstOrThrow();
      if (after.ledger_due || after.ledger_status !== 'confirmed') throw new Error(`the payment was not seen again: ${JSON.stringify(after)}`);
    },
    advance,
    async reverse() {
      throw new Error('Solana has no reversal after finalized (notApplicable)');
    },
    async closeInvoice(invoice) {
      for (let round = 0; round < 8; round += 1) {
        await advance();
        const row = await db.selectFrom('issuances').select('status').where('id', '=', invoice.id).executeTakeFirstOrThrow();
        if (row.status === 'settled') return;
      }
    },
    async reset() {
      overrides.delete(SOLANA_CHAIN_ID);
      await fundRelayer(chain);
    },
    close: () => chain.close(),
  };
}

/** Successful sweeps out of `owner`'s deposit token account: transactions that lowered its balance, read from the node. */
async function sweepsOf(chain: SolanaHarness, owner: string): Promise<number> {
  const account = await tokenAccountOf(chain, owner);
  const signatures = await chain.rpc.getSignaturesForAddress(account, { commitment: 'confirmed' }).send();
  let sweeps = 0;
  for (const entry of signatures) {
    if (entry.err !== null) continue;
    const transaction = await chain.rpc.getTransaction(entry.signature, { commitment: 'confirmed', encoding: 'json', maxSupportedTransactionVersion: 0 }).send();
    const index = transaction?.transaction.message.accountKeys.indexOf(account) ?? -1;
    const amount = (balances: readonly { accountIndex: number; uiTokenAmount: { amount: string } }[] | null | undefined) =>
      BigInt(balances?.find((balance) => balance.accountIndex === index)?.uiTokenAmount.amount ?? '0');
    if (index >= 0 && amount(transaction?.meta?.postTokenBalances) < amount(transaction?.meta?.preTokenBalances)) sweeps += 1;
  }
  return sweeps;
}

/** Empties the relayer: a System transfer of all its lamports but the fee, signed with its own key. */
async function drainRelayer(chain: SolanaHarness): Promise<void> {
  const key = await solanaRelayerKey(chain.app.context.db, chain.app.context.secrets, SOLANA_CHAIN_ID);
  const relayer = await signerOf(key.privateKey);
  const { value: balance } = await chain.rpc.getBalance(relayer.address, { commitment: 'confirmed' }).send();
  if (balance <= 5_000n) return;
  const signed = await signTransaction(chain.rpc, relayer, [
    getTransferSolInstruction({ source: relayer, destination: toAddress(chain.payer.address), amount: toLamports(balance - 5_000n) }),
  ]);
  await sendSigned(chain.rpc, signed.wireBase64);
  await waitConfirmed(chain.rpc, signed.signature, 10_000);
  await waitUntil(async () => (await adminNetworks(chain.app))[0]?.relayer_balance === '0');
}

/** The network's sender that dies at `point`, as a killed process never finishes its call. */
function dyingSender(chain: SolanaHarness, point: KillPoint): ChainAdapter {
  const die = (): never => {
    throw new Error(`sender killed ${point}`);
  };
  const entry = chain.app.context.catalogue.network(SOLANA_CHAIN_ID);
  if (entry?.chain?.family !== 'solana') throw new Error('no Solana access in the catalogue');
  const deps = { db: chain.app.context.db, secrets: chain.app.context.secrets, clock: chain.app.clock, rpc: chain.rpc, network: solanaNetworkOf(entry, entry.chain), log: silent };
  const hooks = point === 'after-sign' ? { afterSign: async () => die() } : point === 'after-store' ? { afterStore: async () => die() } : {};
  return {
    name: `dying-solana-${point}`,
    allocateAddress: (request) => allocateDepositAddress(deps, request),
    async sendPayout(request) {
      await sendSolanaPayout({ ...deps, hooks }, request);
      return die();
    },
  };
}
