import type { Catalogue, FeeKind, FeeTerms } from '../catalogue/index.js';
import { deleteMerchantFeeTerms, listMerchantFeeTerms, upsertMerchantFeeTerms } from '../merchants/index.js';
import { feeFor, parseBaseUnits, units18 } from '../money/index.js';
import type { Clock } from '../platform/clock.js';
import { inTransaction, type Db } from '../platform/database/database.js';
import { IvoryError, fieldError } from '../platform/errors.js';
import { insertAuditEntry } from './admin.repository.js';
import { lockMerchantForOperator } from './get-merchant.js';
import { adminMerchantView, type AdminMerchantView } from './merchant-view.js';
import type { OperatorActor } from './operator.js';

const MAX_BPS = 10_000;

/** One network and kind: new terms (amounts as 18-decimal integer strings), or null for the catalogue's again. */
export interface FeeTermsChange {
  readonly chain_id: number;
  readonly kind: FeeKind;
  readonly terms: { readonly bps: number; readonly minimum: string; readonly maximum: string } | null;
}

/**
 * PATCH /admin/v1/merchants/{id}/fees: the merchant's fee terms per network
 * and kind, checked as the catalogue checks its own (read-catalogue-file.ts):
 * bps 0–10,000; minimum and maximum integer strings in 18-decimal units with
 * minimum ≤ maximum; for invoices, an invoice of exactly the network's
 * minimum_payment must stay creatable (its fee below it) for every token.
 * A network the catalogue does not know is `unsupported_network`; anything
 * else `invalid_fee_terms` with `details {chain_id, kind, field}`. All or
 * nothing. New issuances take the terms; existing ones keep theirs.
 */
export async function setMerchantFees(
  deps: { readonly db: Db; readonly clock: Clock; readonly catalogue: Catalogue },
  input: { readonly merchantId: string; readonly changes: readonly FeeTermsChange[]; readonly actor: OperatorActor },
): Promise<AdminMerchantView> {
  const checked = checkChanges(deps.catalogue, input.changes);
  return inTransaction(deps.db, async (trx) => {
    const now = deps.clock.now();
    const merchant = await lockMerchantForOperator(trx, input.merchantId);
    for (const change of checked) {
      if (change.terms === null) await deleteMerchantFeeTerms(trx, merchant.id, change.chainId, change.kind);
      else await upsertMerchantFeeTerms(trx, merchant.id, { chainId: change.chainId, kind: change.kind, ...change.terms }, now);
    }
    await insertAuditEntry(trx, {
      actor: input.actor,
      action: 'merchant.fees',
      targetType: 'merchant',
      targetId: merchant.id,
      details: { changes: input.changes },
      at: now,
    });
    return adminMerchantView(merchant, await listMerchantFeeTerms(trx, merchant.id));
  });
}

interface CheckedChange {
  readonly chainId: number;
  readonly kind: FeeKind;
  readonly terms: FeeTerms | null;
}

function checkChanges(catalogue: Catalogue, changes: readonly FeeTermsChange[]): CheckedChange[] {
  if (changes.length === 0) throw fieldError('invalid_fee_terms', 'overrides', 'must list at least one change');
  const seen = new Set<string>();
  return changes.map((change) => {
    const fail = (field: string): never => {
      throw new IvoryError('invalid_fee_terms', { chain_id: change.chain_id, kind: change.kind, field });
    };
    const key = `${change.chain_id}:${change.kind}`;
    if (seen.has(key)) fail('chain_id');
    seen.add(key);
    const network = catalogue.network(change.chain_id);
    if (network === undefined) throw new IvoryError('unsupported_network', { chain_id: change.chain_id });
    if (change.kind !== 'invoice' && change.kind !== 'deposit') fail('kind');
    if (change.terms === null) return { chainId: network.chainId, kind: change.kind, terms: null };

    const { bps } = change.terms;
    if (!Number.isInteger(bps) || bps < 0 || bps > MAX_BPS) fail('bps');
    const minimum = parseBaseUnits(change.terms.minimum) ?? fail('minimum');
    const maximum = parseBaseUnits(change.terms.maximum) ?? fail('maximum');
    if (minimum > maximum) fail('minimum');
    const terms: FeeTerms = { bps, minimum: units18(minimum), maximum: units18(maximum) };
    if (change.kind === 'invoice') {
      for (const token of network.tokens) {
        if (feeFor(token.minimumPayment, terms, token.decimals) >= token.minimumPayment) fail('minimum');
      }
    }
    return { chainId: network.chainId, kind: change.kind, terms };
  });
}
