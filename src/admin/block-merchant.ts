import { cancelMerchantIssuances, type LedgerPorts } from '../issuances/index.js';
import { noteApiKeysChanged } from '../keys/index.js';
import { listMerchantFeeTerms, setMerchantBlock } from '../merchants/index.js';
import type { Clock } from '../platform/clock.js';
import { inTransaction, type Db } from '../platform/database/database.js';
import { fieldError } from '../platform/errors.js';
import { insertAuditEntry } from './admin.repository.js';
import { lockMerchantForOperator } from './get-merchant.js';
import { adminMerchantView, type AdminMerchantView } from './merchant-view.js';
import type { OperatorActor } from './operator.js';

export const BLOCK_REASON_MAX = 500;

/**
 * 1–500 characters on one line, not only blanks: it is shown to the
 * merchant's people in `error.details.reason`. Control characters are refused
 * (PostgreSQL text cannot hold NUL at all).
 */
export function parseBlockReason(reason: string): string {
  if (reason.trim() === '') throw fieldError('invalid_reason', 'reason', 'must not be empty or only spaces');
  if ([...reason].length > BLOCK_REASON_MAX) throw fieldError('invalid_reason', 'reason', `must be at most ${BLOCK_REASON_MAX} characters`);
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
  if (/[\u0000-\u001f\u007f]/.test(reason)) throw fieldError('invalid_reason', 'reason', 'must be one line without control characters');
  return reason;
}

/**
 * POST /admin/v1/merchants/{id}/block and `ivory admin block` (SPEC "States
 * and transitions": merchant blocked by operator staff). In one transaction:
 * the merchant is marked blocked with the reason; every unpaid invoice is
 * cancelled with `invoice.cancelled` reason `merchant_blocked`; every deposit
 * address is disabled; the audit entry is written. From the commit on, the
 * merchant's API keys resolve to nothing (401) and its people's requests on it
 * answer 403 `account_disabled` with the reason.
 *
 * A repeat changes nothing but the reason (when a new one is given; the
 * original `blocked_at` stays) and is audited like the first.
 */
export async function blockMerchant(
  deps: { readonly db: Db; readonly clock: Clock; readonly ledger: LedgerPorts },
  input: { readonly merchantId: string; readonly reason: string; readonly actor: OperatorActor },
): Promise<AdminMerchantView> {
  const reason = parseBlockReason(input.reason);
  return inTransaction(deps.db, async (trx) => {
    const now = deps.clock.now();
    const merchant = await lockMerchantForOperator(trx, input.merchantId);
    const alreadyBlocked = merchant.blockedAt !== null;
    const blockedAt = merchant.blockedAt ?? now;
    await setMerchantBlock(trx, merchant.id, { at: blockedAt, reason });
    await noteApiKeysChanged(trx, merchant.id);
    // Also on a repeat: harmless when nothing is open, and it closes anything a creation racing the first block let through.
    const closed = await cancelMerchantIssuances(trx, { now, ledger: deps.ledger }, merchant.id, 'merchant_blocked');
    await insertAuditEntry(trx, {
      actor: input.actor,
      action: 'merchant.block',
      targetType: 'merchant',
      targetId: merchant.id,
      details: { reason, already_blocked: alreadyBlocked, ...(alreadyBlocked ? { previous_reason: merchant.blockedReason } : {}), closed_issuances: closed },
      at: now,
    });
    return adminMerchantView({ ...merchant, blockedAt, blockedReason: reason }, await listMerchantFeeTerms(trx, merchant.id));
  });
}
