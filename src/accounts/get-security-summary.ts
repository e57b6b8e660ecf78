import type { Executor } from '../platform/database/database.js';
import { findTotpFactor } from './mfa.repository.js';

export interface SecuritySummary {
  readonly totp: boolean;
  readonly passkeys: { id: string; name: string; created_at: string }[];
}

/** SPEC "Profile" security summary. Passkeys do not exist yet (issue 10 item 5), so the list is empty. */
export async function getSecuritySummary(db: Executor, userId: string): Promise<SecuritySummary> {
  const factor = await findTotpFactor(db, userId);
  return { totp: factor?.confirmedAt != null, passkeys: [] };
}
