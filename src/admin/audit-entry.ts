import { fieldError } from '../platform/errors.js';
import type { OperatorActor } from './operator.js';

/** What operators can do; each is one audit action. */
export type AuditAction = 'merchant.block' | 'merchant.unblock' | 'merchant.limits' | 'merchant.fees' | 'merchant.payout_setup' | 'network.rescan';

/** One row of the operator audit log, written in the transaction of the action it records. */
export interface NewAuditEntry {
  readonly actor: OperatorActor;
  readonly action: AuditAction;
  readonly targetType: 'merchant' | 'network';
  readonly targetId: string;
  readonly details: Record<string, unknown>;
  readonly at: Date;
}

/** An entry of GET /admin/v1/audit and of `ivory admin audit`. */
export interface AuditEntryView {
  readonly id: string;
  readonly actor: string;
  readonly source: 'api' | 'cli';
  readonly ip: string | null;
  readonly action: string;
  readonly target: { readonly type: string; readonly id: string };
  readonly details: Record<string, unknown>;
  readonly created_at: string;
}

export interface AuditPage {
  readonly entries: AuditEntryView[];
  /** Pass back as `cursor` for the next (older) page; null on the last page. */
  readonly next_cursor: string | null;
}

export const AUDIT_PAGE_DEFAULT = 50;
export const AUDIT_PAGE_MAX = 200;

/**
 * Opaque cursor: base64url of the last shown entry's sequence. Anything that
 * does not decode to a positive integer is `invalid_cursor`.
 */
export function encodeAuditCursor(sequence: string): string {
  return Buffer.from(`audit:${sequence}`, 'utf8').toString('base64url');
}

export function decodeAuditCursor(cursor: string): string {
  const match = /^audit:([1-9]\d{0,18})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (match?.[1] === undefined) throw fieldError('invalid_cursor', 'cursor', 'is not a cursor this list gave out: pass next_cursor back unchanged');
  return match[1];
}
