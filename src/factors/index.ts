import type { AppContext } from '../app-context.js';
import type { IvoryServer } from '../platform/http/server.js';
import { mfaRoutes } from './mfa.routes.js';
import { passkeyRoutes } from './passkey.routes.js';

/**
 * Second factors (SPEC "Sign-in", "Authentication" 6): TOTP and recovery
 * codes, passkeys, the session's MFA state and the security summary. Sessions
 * and users are `accounts/`'s; this module reaches them through its door.
 */
export async function factorsRoutes(api: IvoryServer, context: AppContext): Promise<void> {
  await mfaRoutes(api, context);
  await passkeyRoutes(api, context);
}
