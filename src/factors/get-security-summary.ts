import type { Executor } from '../platform/database/database.js';
import { findTotpFactor } from './mfa.repository.js';
import { listUserPasskeys } from './passkeys.repository.js';
import { passkeyView, type PasskeyView } from './passkeys.js';

export interface SecuritySummary {
  readonly totp: boolean;
  readonly passkeys: PasskeyView[];
}

/** SPEC "Profile" security summary: whether TOTP is confirmed, and the user's passkeys, oldest first. */
export async function getSecuritySummary(db: Executor, userId: string): Promise<SecuritySummary> {
  const factor = await findTotpFactor(db, userId);
  const passkeys = await listUserPasskeys(db, userId);
  return { totp: factor?.confirmedAt != null, passkeys: passkeys.map(passkeyView) };
}
