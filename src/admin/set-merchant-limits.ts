import type { NetworkFamily } from '../catalogue/index.js';
import { listMerchantFeeTerms, setMerchantLimitOverrides } from '../merchants/index.js';
import type { Clock } from '../platform/clock.js';
import { inTransaction, type Db } from '../platform/database/database.js';
import { fieldError } from '../platform/errors.js';
import { insertAuditEntry } from './admin.repository.js';
import { lockMerchantForOperator } from './get-merchant.js';
import { adminMerchantView, type AdminMerchantView } from './merchant-view.js';
import type { OperatorActor } from './operator.js';

/** Far above any real need; keeps counts and comparisons within integer columns. */
export const LIMIT_MAX = 10_000_000;

/**
 * PATCH /admin/v1/merchants/{id}/limits. A field left out stays as it is;
 * null goes back to SPEC's default; a number (0 to LIMIT_MAX) overrides it.
 */
export interface LimitsChange {
  readonly active_invoices?: number | null;
  readonly deposit_addresses?: Readonly<Partial<Record<NetworkFamily, number | null>>>;
  readonly team?: number | null;
}

/**
 * SPEC "Limits": "Operator staff can change invoice, deposit address and team
 * limits per merchant." New creations obey the new values at once (the limit
 * checks read the merchant row); what already exists above a lowered limit
 * stays. An empty change is `invalid_limits`.
 */
export async function setMerchantLimits(
  deps: { readonly db: Db; readonly clock: Clock },
  input: { readonly merchantId: string; readonly change: LimitsChange; readonly actor: OperatorActor },
): Promise<AdminMerchantView> {
  const { change } = input;
  const deposits = Object.entries(change.deposit_addresses ?? {});
  if (change.active_invoices === undefined && change.team === undefined && deposits.length === 0) {
    throw fieldError('invalid_limits', 'body', 'must change active_invoices, deposit_addresses or team');
  }
  const values: [string, number | null | undefined][] = [
    ['active_invoices', change.active_invoices],
    ['team', change.team],
    ...deposits.map(([family, limit]): [string, number | null | undefined] => [`deposit_addresses.${family}`, limit]),
  ];
  for (const [field, value] of values) checkLimit(field, value);

  return inTransaction(deps.db, async (trx) => {
    const merchant = await lockMerchantForOperator(trx, input.merchantId);
    const depositLimits: Record<string, number> = { ...merchant.depositAddressLimits };
    for (const [family, limit] of deposits) {
      if (limit === null || limit === undefined) delete depositLimits[family];
      else depositLimits[family] = limit;
    }
    const overrides = {
      activeInvoiceLimit: change.active_invoices === undefined ? merchant.activeInvoiceLimit : change.active_invoices,
      depositAddressLimits: Object.keys(depositLimits).length === 0 ? null : depositLimits,
      teamLimit: change.team === undefined ? merchant.teamLimit : change.team,
    };
    await setMerchantLimitOverrides(trx, merchant.id, overrides);
    const updated = { ...merchant, ...overrides };
    const view = adminMerchantView(updated, await listMerchantFeeTerms(trx, merchant.id));
    await insertAuditEntry(trx, {
      actor: input.actor,
      action: 'merchant.limits',
      targetType: 'merchant',
      targetId: merchant.id,
      details: { change, limit_overrides: view.limit_overrides },
      at: deps.clock.now(),
    });
    return view;
  });
}

function checkLimit(field: string, value: number | null | undefined): void {
  if (value === undefined || value === null) return;
  if (!Number.isInteger(value) || value < 0 || value > LIMIT_MAX) {
    throw fieldError('invalid_limits', field, `must be a whole number from 0 to ${LIMIT_MAX}, or null for the default`);
  }
}
