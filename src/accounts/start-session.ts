import type { Clock } from '../platform/clock.js';
import { newId, newToken, sha256Hex } from '../platform/crypto.js';
import type { Tx } from '../platform/database/database.js';
import { insertSession } from './accounts.repository.js';
import { SESSION_LIFETIME_MS, newSessionToken } from './session.js';

export interface StartedSession {
  readonly sessionId: string;
  /** Shown once; only its SHA-256 is stored. */
  readonly token: string;
  readonly csrfToken: string;
  readonly expiresAt: Date;
}

/** Opens a session for a user who has just proved who they are by `method`. */
export async function startSession(trx: Tx, clock: Clock, userId: string, method: string): Promise<StartedSession> {
  const now = clock.now();
  const session: StartedSession = {
    sessionId: newId(),
    token: newSessionToken(),
    csrfToken: newToken(),
    expiresAt: new Date(now.getTime() + SESSION_LIFETIME_MS),
  };
  await insertSession(trx, {
    id: session.sessionId,
    userId,
    tokenHash: sha256Hex(session.token),
    csrfToken: session.csrfToken,
    method,
    createdAt: now,
    expiresAt: session.expiresAt,
  });
  return session;
}
