import { noteApiKeysChanged } from '../keys/index.js';
import { listMerchantFeeTerms, setMerchantBlock } from '../merchants/index.js';
import type { Clock } from '../platform/clock.js';
import { inTransaction, type Db } from '../platform/database/database.js';
import { insertAuditEntry } from './admin.repository.js';
import { lockMerchantForOperator } from './get-merchant.js';
import { adminMerchantView, type AdminMerchantView } from './merchant-view.js';
import type { OperatorActor } from './operator.js';

/**
 * POST /admin/v1/merchants/{id}/unblock and `ivory admin unblock`: access
 * comes back (keys, sessions); cancelled invoices stay cancelled and disabled
 * deposit addresses stay disabled — the merchant re-enables those it wants.
 * Unblocking a merchant that is not blocked changes nothing and is audited.
 */
export async function unblockMerchant(
  deps: { readonly db: Db; readonly clock: Clock },
  input: { readonly merchantId: string; readonly actor: OperatorActor },
): Promise<AdminMerchantView> {
  return inTransaction(deps.db, async (trx) => {
    const now = deps.clock.now();
    const merchant = await lockMerchantForOperator(trx, input.merchantId);
    if (merchant.blockedAt !== null) {
      await setMerchantBlock(trx, merchant.id, null);
      await noteApiKeysChanged(trx, merchant.id);
    }
    await insertAuditEntry(trx, {
      actor: input.actor,
      action: 'merchant.unblock',
      targetType: 'merchant',
      targetId: merchant.id,
      details: { was_blocked: merchant.blockedAt !== null, ...(merchant.blockedAt === null ? {} : { previous_reason: merchant.blockedReason }) },
      at: now,
    });
    return adminMerchantView({ ...merchant, blockedAt: null, blockedReason: null }, await listMerchantFeeTerms(trx, merchant.id));
  });
}
