import type { Clock } from '../platform/clock.js';
import type { Executor } from '../platform/database/database.js';
import { revokeSession } from './accounts.repository.js';

/** SPEC "Sign-in" POST /auth/logout: the token stops working at once. */
export async function signOut(db: Executor, clock: Clock, sessionId: string): Promise<void> {
  await revokeSession(db, sessionId, clock.now());
}
