import type { EventSubscriber } from '../events/index.js';
import type { PayoutSplit } from '../money/index.js';
import type { IssuanceId, PayoutId } from '../platform/ids.js';
import type { Executor, Tx } from '../platform/database/database.js';
import type { Issuance } from './issuance.js';

/**
 * What the issuance lifecycle needs of payouts: the payout it looks at, and
 * the payout rows its effects create, re-split or cancel. `payouts/` builds on
 * `issuances/` (a payout belongs to an issuance, its events carry the
 * issuance's data), so `issuances/` may not import it back (ARCHITECTURE
 * "Boundaries"); the composition root hands the payouts module's
 * implementation in (`LedgerPorts`).
 */
export interface PayoutLedger {
  /** The issuance's payout that is still live (not cancelled or reverted), newest first, locked. */
  lockCurrent(trx: Tx, issuanceId: IssuanceId): Promise<IssuancePayout | undefined>;
  /** One payout by id, locked (a deposit's reversal: the payout that swept the transfer). */
  lock(trx: Tx, payoutId: PayoutId): Promise<IssuancePayout | undefined>;
  /** A new payout row, `scheduled`, of this split; answers its id. */
  schedule(trx: Tx, now: Date, issuance: Issuance, split: PayoutAmounts): Promise<PayoutId>;
  /** `schedule` of many in one statement, ids in the order asked (the batch ledger entry). */
  scheduleMany(trx: Tx, now: Date, payouts: readonly { readonly issuance: Issuance; readonly split: PayoutAmounts }[]): Promise<PayoutId[]>;
  /** The unsent payout moves a different sum now. */
  resplit(trx: Tx, now: Date, payoutId: PayoutId, split: PayoutAmounts): Promise<void>;
  cancel(trx: Tx, now: Date, payoutId: PayoutId): Promise<void>;
  /** SPEC `payout_tx_hash`: the latest confirmed outgoing transfer to the recipient. */
  latestConfirmedTxHash(executor: Executor, issuanceId: IssuanceId): Promise<string | null>;
  /** `latestConfirmedTxHash` of many issuances in one read; those without one are absent. */
  latestConfirmedTxHashes(executor: Executor, issuanceIds: readonly IssuanceId[]): Promise<ReadonlyMap<IssuanceId, string>>;
}

/** The payout as the issuance lifecycle sees it. */
export interface IssuancePayout {
  readonly id: PayoutId;
  /** The sweep was broadcast or confirmed: it can no longer be re-split or cancelled. */
  readonly broadcast: boolean;
  /** What it moves. */
  readonly gross: bigint;
}

export type PayoutAmounts = PayoutSplit & { readonly gross: bigint };

/**
 * The ledger's reactions that belong to modules built on issuances: the
 * payouts its effects move, and the outbox's subscribers (webhook fan-out)
 * that commit with each event. Built once by the composition root and
 * passed in with the app context and the jobs' deps.
 */
export interface LedgerPorts {
  readonly payouts: PayoutLedger;
  readonly eventSubscribers: readonly EventSubscriber[];
}

/** What a write to the ledger takes besides its transaction. */
export interface LedgerDeps {
  readonly now: Date;
  readonly ledger: LedgerPorts;
}
