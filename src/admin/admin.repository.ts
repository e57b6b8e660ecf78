import type { Executor, Tx } from '../platform/database/database.js';
import { newId } from '../platform/crypto.js';
import { OPERATOR } from './operator.js';
import type { AuditEntryView, NewAuditEntry } from './audit-entry.js';

/** The operator audit log (migrations/202611230041_admin_audit.sql). */

export async function insertAuditEntry(trx: Tx, entry: NewAuditEntry): Promise<void> {
  await trx
    .insertInto('admin_audit_entries')
    .values({
      id: newId(),
      actor: OPERATOR,
      source: entry.actor.source,
      actor_ip: entry.actor.ip,
      action: entry.action,
      target_type: entry.targetType,
      target_id: entry.targetId,
      details: JSON.stringify(entry.details),
      created_at: entry.at,
    })
    .execute();
}

/** Newest first: entries inserted before `beforeSequence` (all when null), at most `limit`. */
export async function listAuditEntries(
  db: Executor,
  options: { limit: number; beforeSequence: string | null },
): Promise<{ sequence: string; view: AuditEntryView }[]> {
  let query = db.selectFrom('admin_audit_entries').selectAll().orderBy('sequence', 'desc').limit(options.limit);
  if (options.beforeSequence !== null) query = query.where('sequence', '<', options.beforeSequence);
  const rows = await query.execute();
  return rows.map((row) => ({
    sequence: String(row.sequence),
    view: {
      id: row.id,
      actor: row.actor,
      source: row.source,
      ip: row.actor_ip,
      action: row.action,
      target: { type: row.target_type, id: row.target_id },
      details: row.details,
      created_at: row.created_at.toISOString(),
    },
  }));
}
