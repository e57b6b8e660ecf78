import type { ErrorCode } from '../platform/errors.js';
import type { GroupId, IssuanceId, MerchantId, ShopId } from '../platform/ids.js';
import type { KeptIssuanceAccess, ShopIssuanceAccess } from '../merchants/index.js';
import type { Catalogue } from '../catalogue/index.js';
import type { ChainAdapters } from '../chains/index.js';
import { formatDecimal, parseDecimalAmount } from '../money/index.js';
import { newId, randomBase64url } from '../platform/crypto.js';
import type { Executor, Tx } from '../platform/database/database.js';
import { activeInvoiceLimit, addressesByFamily, enforceDepositAddressLimit, type InvoiceLimitGate } from '../limits/index.js';
import type { Issuance, IssuanceGroup, IssuanceKind } from './issuance.js';
import { parseIssuanceRequest, type IssuanceRequest, type IssuanceRequestBody } from './issuance-request.js';
import { groupView, issuanceView, type GroupView, type IssuanceView } from './issuance-view.js';
import type { IdempotencyRecord } from '../platform/database/idempotency.repository.js';
import { insertGroup, insertInvoiceInOneStatement, insertIssuances, insertIssuancesReading } from './issuances.repository.js';
import { feeTermsKey, planOptions, type PlannedOption } from './plan-options.js';

/** What pricing and showing a new issuance take. */
export interface IssuanceDeps {
  readonly now: Date;
  readonly catalogue: Catalogue;
  readonly adapters: ChainAdapters;
  readonly payUrl: string;
  /** `findRecipientProblems`' answer for this request; absent: nothing. */
  readonly recipientProblems?: ReadonlyMap<string, ErrorCode>;
}

export interface CreateIssuanceDeps extends IssuanceDeps {
  /** Made once per request, outside the transaction (it survives its retries); its lock was taken by the access read. */
  readonly invoiceLimitGate: InvoiceLimitGate;
}

/** A short, URL-safe, unguessable public payment identifier (16 characters). */
export function newPublicId(): string {
  return randomBase64url(12);
}

export interface CreateIssuanceInput {
  /** From `requireShopAccessForIssuance`, which also took the invoice gate's lock. */
  readonly access: ShopIssuanceAccess;
  readonly kind: IssuanceKind;
  readonly body: IssuanceRequestBody;
  /** The request's idempotency record holding this answer, to run in the last statement. */
  readonly claimAnswer: (answer: IssuanceView | GroupView) => IdempotencyRecord;
}

/**
 * POST /shops/{id}/invoices and /deposits: checks the request (SPEC Rules 1–3,
 * limits), then stores one issuance, or a group and one issuance per option,
 * all `registering`; the allocation worker gives them addresses. Any failing
 * option fails the whole request before anything is written.
 *
 * Two statements for an ungrouped invoice after the access read: the
 * issuance, the idempotency record and the limit state in one, then commit
 * (decision 0019).
 */
export async function createIssuance(trx: Tx, deps: CreateIssuanceDeps, input: CreateIssuanceInput): Promise<void> {
  const { now } = deps;
  const { access, kind } = input;
  const { merchantId, shop } = access;
  const { base, options } = planIssuance(deps, access, kind, input.body);

  // Stored first, limits checked last (see enforce-limits.ts): a refusal
  // rolls the whole transaction back, so nothing of it remains.
  const store = async (issuances: readonly Issuance[], answer: IssuanceView | GroupView): Promise<void> => {
    const record = input.claimAnswer(answer);
    if (kind === 'invoice') {
      const gate = deps.invoiceLimitGate;
      gate.admit(await insertIssuancesReading(trx, issuances, record, gate.stateRead({ merchantId, sandbox: shop.sandbox, now })));
      return;
    }
    await insertIssuances(trx, issuances, record);
    await enforceDepositAddressLimit(trx, merchantId, shop.sandbox, addressesByFamily(options), true);
  };

  if (!base.request.grouped) {
    const [only] = options;
    if (only === undefined) throw new Error('a single issuance without its option');
    const issuance = newIssuance(base, only, null, null);
    await store([issuance], issuanceView(issuance, null, deps.payUrl));
    return;
  }

  const group: IssuanceGroup = newCommon(base, {
    id: newId<GroupId>(),
    amount: normalisedGroupAmount(base.request, options),
    paidIssuanceId: null,
  });
  await insertGroup(trx, group);
  const issuances = options.map((option, position) => newIssuance(base, option, group.id, position));
  await store(issuances, groupView(group, issuances, deps.payUrl));
}

export interface CreateInvoiceInOneStatementInput {
  /** The shop's terms as this process kept them for the request's API key (src/merchants). */
  readonly kept: KeptIssuanceAccess;
  readonly body: IssuanceRequestBody;
  /** The request's idempotency record holding this answer, written by the same statement. */
  readonly claimAnswer: (answer: IssuanceView) => IdempotencyRecord;
}

/**
 * `createIssuance` for the common case — one invoice, no group, terms kept
 * from an earlier request — in a single statement outside any transaction
 * (decision 0019): the issuance, the idempotency record, the check that the
 * kept terms are still the stored ones and the shared limit gate. That
 * statement writes all of it or nothing. Returns false, having written
 * nothing, for a group; throws, having written nothing, when the request is
 * refused, the terms moved or the limit is near (the caller then takes the
 * general path, which decides each of these exactly).
 */
export async function createInvoiceInOneStatement(db: Executor, deps: IssuanceDeps, input: CreateInvoiceInOneStatementInput): Promise<boolean> {
  const { kept } = input;
  const { base, options } = planIssuance(deps, kept.access, 'invoice', input.body);
  const [only] = options;
  if (base.request.grouped || only === undefined) return false;
  const issuance = newIssuance(base, only, null, null);
  const record = input.claimAnswer(issuanceView(issuance, null, deps.payUrl));
  await insertInvoiceInOneStatement(db, issuance, record, {
    shopId: kept.access.shopId,
    shopStamp: kept.stamps.shop,
    merchantStamp: kept.stamps.merchant,
    sandbox: kept.access.shop.sandbox,
    limit: activeInvoiceLimit(kept.activeInvoiceLimit),
  });
  return true;
}

/** The request checked (SPEC Rules 1–3, amount limits) and priced: one option per asset. */
function planIssuance(deps: IssuanceDeps, access: ShopIssuanceAccess, kind: IssuanceKind, body: IssuanceRequestBody) {
  const request = parseIssuanceRequest(kind, body, deps.now);
  const { feeTerms, payoutSetup } = access.terms;
  // Operator staff's terms (admin PATCH /merchants/{id}/fees), by network and kind.
  const merchantFeeTerms = new Map(feeTerms.map((row) => [feeTermsKey(row.chainId, row.kind), { bps: row.bps, minimum: row.minimum, maximum: row.maximum }]));
  const options = planOptions(request, {
    catalogue: deps.catalogue,
    adapters: deps.adapters,
    shop: access.shop,
    merchantFeeTerms,
    payoutSetup,
    ...(deps.recipientProblems === undefined ? {} : { recipientProblems: deps.recipientProblems }),
  });
  const base: NewIssuanceBase = { shopId: access.shopId, merchantId: access.merchantId, sandbox: access.shop.sandbox, now: deps.now, request };
  return { base, options };
}

interface NewIssuanceBase {
  readonly shopId: ShopId;
  readonly merchantId: MerchantId;
  readonly sandbox: boolean;
  readonly now: Date;
  readonly request: IssuanceRequest;
}

/**
 * What a new group and each new issuance start with alike, with `own` added.
 * Object.assign onto this object, not `{ ...common, ...own }`: on the Node
 * this runs on, spreading into a literal that then gains properties takes
 * about 2 µs per added property (measured; ~50 µs per issuance, on the
 * invoice-creation hot path), assigning them a few nanoseconds each.
 */
function newCommon<Own extends object>(base: NewIssuanceBase, own: Own) {
  const { request } = base;
  const common = {
    publicId: newPublicId(),
    shopId: base.shopId,
    merchantId: base.merchantId,
    kind: request.kind,
    sandbox: base.sandbox,
    externalId: request.externalId,
    description: request.description,
    returnUrl: request.returnUrl,
    expiresAt: request.expiresAt,
    cancelledAt: null,
    cancelReason: null,
    disabledAt: null,
    createdAt: base.now,
  };
  return Object.assign(common, own);
}

function newIssuance(
  base: NewIssuanceBase,
  option: PlannedOption,
  groupId: GroupId | null,
  groupPosition: number | null,
): Issuance {
  return newCommon(base, {
    id: newId<IssuanceId>(),
    groupId,
    groupPosition,
    chainId: option.chainId,
    family: option.family,
    token: option.token,
    tokenDecimals: option.tokenDecimals,
    amount: option.amount,
    received: 0n,
    credited: 0n,
    unswept: 0n,
    status: 'registering',
    address: null,
    recipient: option.recipient,
    delegate: option.delegate,
    payoutTarget: option.payoutTarget,
    feeTerms: option.feeTerms,
    sweepThreshold: option.sweepThreshold,
    fundedAt: null,
    settledAt: null,
  });
}

/** "010.50" is stored as "10.5": the decimal the options were priced from. */
function normalisedGroupAmount(request: IssuanceRequest, options: readonly PlannedOption[]): string | null {
  if (request.amount === null) return null;
  const decimals = Math.max(...options.map((option) => option.tokenDecimals));
  const parsed = parseDecimalAmount(request.amount, decimals);
  return parsed === undefined ? request.amount : formatDecimal(parsed, decimals);
}
