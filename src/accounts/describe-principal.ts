import type { Executor } from '../platform/database/database.js';
import type { Principal } from '../platform/http/principal.js';
import type { Scope } from '../platform/database/schema.js';
import { findUser } from './accounts.repository.js';
import { sessionUserView, type SessionUserView } from './session.js';

export type PrincipalView =
  | { readonly user: SessionUserView; readonly csrf: string }
  | {
      readonly type: 'api_key';
      readonly key_id: string;
      readonly shop_id: string;
      readonly merchant_id: string;
      readonly scopes: readonly Scope[];
    };

/** SPEC "Account" GET /me: a session's user and CSRF token, or a key's principal object (no csrf). */
export async function describePrincipal(db: Executor, principal: Principal): Promise<PrincipalView> {
  if (principal.kind === 'api_key') {
    return {
      type: 'api_key',
      key_id: principal.keyId,
      shop_id: principal.shopId,
      merchant_id: principal.merchantId,
      scopes: principal.scopes,
    };
  }
  const user = await findUser(db, principal.userId);
  if (user === undefined) throw new Error(`session ${principal.sessionId} has no user`);
  return { user: sessionUserView(user, principal.mfaAt), csrf: principal.csrfToken };
}
