import { API_KEY_TOKEN_PREFIX, resolveApiKey } from '../keys/index.js';
import type { Clock } from '../platform/clock.js';
import type { AppContext } from '../app-context.js';
import { sha256Hex } from '../platform/crypto.js';
import type { Executor } from '../platform/database/database.js';
import { IvoryError } from '../platform/errors.js';
import type { PrincipalResolver, SessionPrincipal } from '../platform/http/principal.js';
import { findLiveSession } from './accounts.repository.js';
import { findBlockOfEveryMerchant } from './merchant-standing.repository.js';

/**
 * The one bearer-token resolver of the app: `ivk_` tokens are shop API keys,
 * anything else a session. Null (→ 401) for anything unknown, expired,
 * revoked, disabled or outside a key's IP allowlist. A token from the
 * session cookie is only ever a session: an API key never comes from a cookie.
 */
export function resolvePrincipal(context: AppContext): PrincipalResolver {
  const deps = { db: context.db, clock: context.clock };
  const keyDeps = { ...deps, cache: context.apiKeyCache };
  return async (token, clientIp, from) => {
    if (!token.startsWith(API_KEY_TOKEN_PREFIX)) return resolveSession(deps, token);
    return from === 'cookie' ? null : resolveApiKey(keyDeps, token, clientIp);
  };
}

/**
 * SPEC "Authentication" 9: a blocked user's session answers account_disabled
 * with the reason. So does the session of a user whose every merchant is
 * blocked by operator staff (the merchant's people are blocked with it); a
 * user who also belongs to a merchant in good standing keeps the session, and
 * only requests on the blocked merchant's shops and merchant routes answer
 * account_disabled (requireShopAccess / requireMerchantAccess).
 */
async function resolveSession(deps: { db: Executor; clock: Clock }, token: string): Promise<SessionPrincipal | null> {
  const session = await findLiveSession(deps.db, sha256Hex(token), deps.clock.now());
  if (session === undefined) return null;
  if (session.userBlockedAt !== null) throw new IvoryError('account_disabled', { reason: session.userBlockedReason ?? '' });
  const merchantBlock = await findBlockOfEveryMerchant(deps.db, session.userId);
  if (merchantBlock !== undefined) throw new IvoryError('account_disabled', { reason: merchantBlock.reason });
  return {
    kind: 'session',
    sessionId: session.sessionId,
    userId: session.userId,
    csrfToken: session.csrfToken,
    expiresAt: session.expiresAt,
    mfaAt: session.mfaAt,
    mfaEnrolled: session.mfaEnrolled,
  };
}
