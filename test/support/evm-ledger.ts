import { randomBytes } from 'node:crypto';
import type { SweepLedger, TransferLedger } from '../../src/chains/ledger-ports.js';
import { listWatchedAddresses } from '../../src/allocation/index.js';
import { recordTransfers } from '../../src/issuances/index.js';
import { ledgerPorts } from '../../src/ledger-ports.js';
import { confirmPayout, recordFailedSweep, revertPayout, wakeWaitingGasPayouts } from '../../src/payouts/index.js';
import { newId } from '../../src/platform/crypto.js';
import type { Executor } from '../../src/platform/database/database.js';

/** The real ledger behind the watcher's port. */
export const transferLedger: TransferLedger = {
  recordTransfers: async (trx, now, transfers) => {
    await recordTransfers(trx, { now, ledger: ledgerPorts }, transfers);
  },
  // The app's own query (allocation `listWatchedAddresses`), as `src/live-chains.ts` wires it.
  watchedAddresses: listWatchedAddresses,
};

/** The real payouts ledger behind the payout tracker's port, as `src/live-chains.ts` wires it. */
export const sweepLedger: SweepLedger = {
  confirmPayout: async (trx, now, payout) => {
    await confirmPayout(trx, { now, ledger: ledgerPorts }, payout);
  },
  revertPayout: async (trx, now, payout) => {
    await revertPayout(trx, { now, ledger: ledgerPorts }, payout);
  },
  sweepFailed: async (trx, now, payout) => {
    await recordFailedSweep(trx, { now, ledger: ledgerPorts }, payout);
  },
  relayerFunded: async (trx, now, network) => wakeWaitingGasPayouts(trx, network.chainId, now),
};

/**
 * A live (non-sandbox) open EVM issuance at `address`, as allocation leaves
 * it: a row in `issuances` (the subject of the watcher tests is the chain,
 * not creation over HTTP). Fee terms 50 bps, min 0.1, max 5 (18-decimal units).
 */
export async function insertLiveIssuance(
  db: Executor,
  shop: { readonly id: string; readonly merchantId: string },
  options: { readonly chainId: number; readonly token: string; readonly address: string; readonly amount?: bigint; readonly kind?: 'invoice' | 'deposit'; readonly at?: Date },
): Promise<{ id: string }> {
  const id = newId();
  const at = options.at ?? new Date();
  const kind = options.kind ?? 'invoice';
  await db
    .insertInto('issuances')
    .values({
      id,
      public_id: `inv_${randomBytes(9).toString('hex')}`,
      shop_id: shop.id,
      merchant_id: shop.merchantId,
      group_id: null,
      group_position: null,
      kind,
      sandbox: false,
      chain_id: options.chainId,
      family: 'evm',
      token: options.token,
      token_decimals: 6,
      amount: kind === 'invoice' ? (options.amount ?? 100_000_000n) : null,
      status: 'open',
      address: options.address,
      next_allocation_at: null,
      recipient: '0x000000000000000000000000000000000000dEaD',
      delegate: null,
      payout_target: 'address',
      fee_bps: 50,
      fee_minimum: 100_000_000_000_000_000n,
      fee_maximum: 5_000_000_000_000_000_000n,
      sweep_threshold: kind === 'deposit' ? 1_000_000n : null,
      external_id: null,
      description: null,
      return_url: null,
      expires_at: null,
      cancelled_at: null,
      cancel_reason: null,
      disabled_at: null,
      funded_at: null,
      settled_at: null,
      created_at: at,
      updated_at: at,
    })
    .execute();
  return { id };
}
