import type { Tx } from '../platform/database/database.js';
import { IvoryError } from '../platform/errors.js';
import { deleteSandboxHistory } from './sandbox.repository.js';

/**
 * POST /shops/{id}/sandbox/reset: deletes the sandbox shop's payment history.
 * A live shop is `forbidden`: its history is money that really moved.
 */
export async function resetSandbox(trx: Tx, shop: { readonly id: string; readonly sandbox: boolean }): Promise<{ reset: true; deleted_issuances: number }> {
  if (!shop.sandbox) throw new IvoryError('forbidden');
  const deleted = await deleteSandboxHistory(trx, shop.id);
  return { reset: true, deleted_issuances: deleted };
}
