import { randomBytes } from 'node:crypto';
import { asId, type ShopId } from '../platform/ids.js';
import { sandboxAddress, sandboxTxHash } from '../chains/index.js';
import { isUuid } from '../platform/ids.js';
import { parseBaseUnits, wholeTokens } from '../money/index.js';
import type { Tx } from '../platform/database/database.js';
import { IvoryError, fieldError } from '../platform/errors.js';
import {
  closeInvoiceOnChain,
  findShopGroup,
  findShopIssuance,
  findTransferByConfirmedEvent,
  recordTransfer,
  type Issuance,
  type LedgerDeps,
} from '../issuances/index.js';
import { SANDBOX_AMOUNT_LIMIT_TOKENS } from '../limits/index.js';
import { signalPayout, type PayoutSignal } from '../payouts/index.js';

export interface SimulateBody {
  readonly issuance_id: string;
  readonly kind: string;
  readonly amount: string;
  readonly reference_event_id?: string;
}

export interface SimulateResult {
  readonly kind: string;
  readonly issuance_id: string;
  /** The event written, if the kind writes one (the two internal signals do not). */
  readonly event_id: string | null;
  readonly transfer_id: string | null;
  readonly payout: { readonly id: string; readonly status: string; readonly attempts: number } | null;
}

/** SPEC "Sandbox": the kinds simulate accepts, in SPEC's order. Any other is `invalid_simulation`. */
export const SIMULATION_KINDS = ['transfer.confirmed', 'invoice.closed', 'transfer.reverted', 'gas.wait', 'sweep.failed'] as const;
export type SimulationKind = (typeof SIMULATION_KINDS)[number];

/**
 * POST /shops/{id}/sandbox/simulate: inserts only the requested event, through
 * the real ledger (ARCHITECTURE rule 2; LEDGER "Sandbox"). Problems with the
 * request's meaning — unknown kind, an option the simulation does not apply
 * to — are `invalid_simulation`, whose `details.reason` stays the code-like
 * word it has always been (`unknown_kind`, decision 0022) beside the `field`
 * it concerns; a live shop is `forbidden` (real money is never simulated).
 * Non-transfer kinds take amount "0".
 */
export async function simulateSandboxEvent(
  trx: Tx,
  deps: LedgerDeps,
  shop: { readonly id: ShopId; readonly sandbox: boolean },
  body: SimulateBody,
): Promise<SimulateResult> {
  if (!shop.sandbox) throw new IvoryError('forbidden');
  const kind = SIMULATION_KINDS.find((known) => known === body.kind);
  if (kind === undefined) throw fieldError('invalid_simulation', 'kind', 'unknown_kind');
  const amount = parseBaseUnits(body.amount);
  if (amount === undefined) throw fieldError('invalid_amount', 'amount', 'must be a whole number of base units, as a string such as "1000000"');
  const issuance = await findOption(trx, shop.id, body.issuance_id);
  const base = { kind, issuance_id: issuance.id, event_id: null, transfer_id: null, payout: null };

  if (kind === 'transfer.confirmed') {
    if (amount === 0n) throw fieldError('invalid_amount', 'amount', 'must be more than 0 for transfer.confirmed');
    if (amount > wholeTokens(SANDBOX_AMOUNT_LIMIT_TOKENS, issuance.tokenDecimals)) {
      throw fieldError('sandbox_amount_limit', 'amount', `must be at most ${SANDBOX_AMOUNT_LIMIT_TOKENS} whole tokens on a sandbox shop`);
    }
    if (issuance.address === null) throw fieldError('invalid_simulation', 'issuance_id', 'address_not_allocated');
    const outcome = await recordTransfer(trx, deps, {
      issuanceId: issuance.id,
      chainId: issuance.chainId,
      txHash: sandboxTxHash(issuance.family, randomBytes(32)),
      logIndex: 0,
      fromAddress: sandboxAddress(issuance.family, `payer:${issuance.id}`),
      toAddress: issuance.address,
      amount,
      status: 'confirmed',
    });
    if (outcome.outcome !== 'recorded') throw new Error(`sandbox transfer not recorded: ${outcome.outcome}`);
    return { ...base, event_id: outcome.eventIds[0] ?? null, transfer_id: outcome.transferId };
  }

  if (kind === 'transfer.reverted') {
    const reference = body.reference_event_id;
    if (reference === undefined || !isUuid(reference)) {
      throw fieldError('invalid_simulation', 'reference_event_id', 'reference_event_id_required');
    }
    const transfer = await findTransferByConfirmedEvent(trx, shop.id, reference);
    if (transfer === undefined || transfer.issuanceId !== issuance.id || transfer.status !== 'confirmed') {
      throw fieldError('invalid_simulation', 'reference_event_id', 'not_a_confirmed_transfer_of_this_issuance');
    }
    // A reversal undoes the whole transfer: amount "0" or exactly the transfer's.
    if (amount !== 0n && amount !== transfer.amount) {
      throw fieldError('invalid_amount', 'amount', `must be "0" or the whole amount of the transfer reverted ("${transfer.amount}")`);
    }
    const outcome = await recordTransfer(trx, deps, {
      issuanceId: issuance.id,
      chainId: transfer.chainId,
      txHash: transfer.txHash,
      logIndex: transfer.logIndex,
      fromAddress: transfer.fromAddress,
      toAddress: transfer.toAddress,
      amount: transfer.amount,
      status: 'reverted',
    });
    if (outcome.outcome !== 'recorded') throw new Error(`sandbox reversal not recorded: ${outcome.outcome}`);
    return { ...base, event_id: outcome.eventIds[0] ?? null, transfer_id: transfer.id };
  }

  if (amount !== 0n) throw fieldError('invalid_amount', 'amount', `must be "0" for ${kind}`);
  if (kind === 'invoice.closed') {
    const eventId = await closeInvoiceOnChain(trx, deps, issuance.id);
    if (eventId === undefined) throw fieldError('invalid_simulation', 'issuance_id', 'not_funded');
    return { ...base, event_id: eventId };
  }
  const payout = await signalPayout(trx, deps.now, issuance.id, kind satisfies PayoutSignal);
  if (payout === undefined) throw fieldError('invalid_simulation', 'issuance_id', 'no_scheduled_payout');
  return { ...base, payout: { id: payout.id, status: payout.status, attempts: payout.attempts } };
}

/** The option simulated on: an issuance of this shop. A group's own id names no address. */
async function findOption(trx: Tx, shopId: ShopId, id: string): Promise<Issuance> {
  if (!isUuid(id)) throw new IvoryError('not_found');
  const issuance = await findShopIssuance(trx, shopId, asId(id));
  if (issuance !== undefined) return issuance;
  if ((await findShopGroup(trx, shopId, asId(id))) !== undefined) {
    throw fieldError('invalid_simulation', 'issuance_id', 'group_id_given');
  }
  throw new IvoryError('not_found');
}
