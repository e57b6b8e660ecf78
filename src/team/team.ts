import type { Role } from '../platform/database/schema.js';
import { IvoryError, fieldError } from '../platform/errors.js';
import type { Principal, SessionPrincipal } from '../platform/http/principal.js';
import type { GrantRow, InvitationRow } from './team.repository.js';

/** How long an invitation can be accepted (decision 0016). */
export const INVITATION_LIFETIME_MS = 7 * 24 * 60 * 60 * 1000;

const ROLES: readonly Role[] = ['viewer', 'developer', 'owner'];

const RANK: Readonly<Record<Role, number>> = { viewer: 1, developer: 2, owner: 3 };

export function outranks(role: Role, other: Role): boolean {
  return RANK[role] > RANK[other];
}

/** SPEC "Team": `viewer`, `developer` or `owner`; anything else is `invalid_request`. */
export function parseRole(value: string): Role {
  const role = ROLES.find((candidate) => candidate === value);
  if (role === undefined) throw fieldError('invalid_request', 'role', `must be one of ${ROLES.join(', ')}`);
  return role;
}

/** Team routes are session-only (SPEC "Authentication" 3 and 8); the auth layer already refused keys. */
export function sessionOf(principal: Principal): SessionPrincipal {
  if (principal.kind !== 'session') throw new IvoryError('forbidden');
  return principal;
}

export type InvitationStatus = 'pending' | 'accepted' | 'revoked' | 'expired';

export interface InvitationRecord {
  readonly id: string;
  readonly merchant_id: string;
  readonly provider: 'email';
  readonly subject: string;
  readonly role: Role;
  readonly shop_id: string | null;
  readonly status: InvitationStatus;
  readonly created_at: string;
  readonly expires_at: string;
}

export function invitationStatus(row: InvitationRow, now: Date): InvitationStatus {
  if (row.accepted_at !== null) return 'accepted';
  if (row.revoked_at !== null) return 'revoked';
  return row.expires_at.getTime() <= now.getTime() ? 'expired' : 'pending';
}

export function invitationRecord(row: InvitationRow, now: Date): InvitationRecord {
  return {
    id: row.id,
    merchant_id: row.merchant_id,
    provider: row.provider,
    subject: row.address,
    role: row.role,
    shop_id: row.shop_id,
    status: invitationStatus(row, now),
    created_at: row.created_at.toISOString(),
    expires_at: row.expires_at.toISOString(),
  };
}

export interface GrantRecord {
  readonly id: string;
  readonly user_id: string;
  /** The member's e-mail sign-in address; null for a wallet-only account. */
  readonly email: string | null;
  readonly role: Role;
  readonly shop_id: string | null;
  readonly created_at: string;
}

export function grantRecord(grant: GrantRow, email: string | null): GrantRecord {
  return { id: grant.id, user_id: grant.userId, email, role: grant.role, shop_id: grant.shopId, created_at: grant.createdAt.toISOString() };
}
