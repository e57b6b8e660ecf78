import type { Executor } from '../platform/database/database.js';
import { fieldError } from '../platform/errors.js';
import { listAuditEntries as selectAuditEntries } from './admin.repository.js';
import { AUDIT_PAGE_DEFAULT, AUDIT_PAGE_MAX, decodeAuditCursor, encodeAuditCursor, type AuditPage } from './audit-entry.js';

/**
 * GET /admin/v1/audit?limit=&cursor= and `ivory admin audit`: operator
 * actions, newest first, `limit` (1–200, default 50) per page; `next_cursor`
 * continues with older entries.
 */
export async function listAuditEntries(db: Executor, query: { readonly limit?: number; readonly cursor?: string }): Promise<AuditPage> {
  const limit = query.limit ?? AUDIT_PAGE_DEFAULT;
  if (!Number.isInteger(limit) || limit < 1 || limit > AUDIT_PAGE_MAX) throw fieldError('invalid_request', 'limit', `must be a whole number from 1 to ${AUDIT_PAGE_MAX}`);
  const beforeSequence = query.cursor === undefined ? null : decodeAuditCursor(query.cursor);
  // One more than asked tells whether an older page exists.
  const rows = await selectAuditEntries(db, { limit: limit + 1, beforeSequence });
  const shown = rows.slice(0, limit);
  const last = shown.at(-1);
  return { entries: shown.map((row) => row.view), next_cursor: rows.length > limit && last !== undefined ? encodeAuditCursor(last.sequence) : null };
}
