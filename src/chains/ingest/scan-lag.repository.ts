import { sql } from 'kysely';
import type { Executor } from '../../platform/database/database.js';
import type { ScanLag } from '../../platform/http/metrics.js';

/** Each network's ingest as its cursor stands (`chain_scan_cursors`), for /metrics. */
export async function readScanLags(db: Executor, now: Date): Promise<ScanLag[]> {
  const { rows } = await sql<{ chain_id: string; next_block: string; head_block: string | null; updated_at: Date }>`
    select chain_id, next_block, head_block, updated_at from chain_scan_cursors where stream = '' order by chain_id`.execute(db);
  return rows.map((row) => ({
    chainId: Number(row.chain_id),
    // next_block is the first block not yet scanned: caught up means next_block = head + 1.
    lagBlocks: row.head_block === null ? 0 : Math.max(0, Number(BigInt(row.head_block) - BigInt(row.next_block) + 1n)),
    ageSeconds: Math.max(0, (now.getTime() - new Date(row.updated_at).getTime()) / 1000),
  }));
}
