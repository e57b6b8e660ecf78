import type { Executor } from '../platform/database/database.js';
import { listIdentities as listIdentityRows } from './profile.repository.js';

/** SPEC "Profile" Identity, as GET /identities lists them. */
export interface IdentityView {
  readonly id: string;
  readonly provider: string;
  readonly label: string;
}

/** SPEC "Account" GET /identities: the user's sign-in methods (wallet addresses, e-mail, identity providers), oldest first. */
export async function listIdentities(db: Executor, userId: string): Promise<IdentityView[]> {
  const rows = await listIdentityRows(db, userId);
  return rows.map((row) => ({ id: row.id, provider: row.provider, label: row.label }));
}
