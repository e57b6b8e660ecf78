/** What other modules may use of accounts. */
export { accountsRoutes } from './accounts.routes.js';
export { resolvePrincipal } from './resolve-principal.js';
export { requireOnboarded } from './require-onboarded.js';
// For the second factors (factors/) and the identity provider (identity-provider/): users,
// identities, sessions, and how a session answer shows its user.
export { findIdentityOwner, findUser, insertIdentity, revokeSession } from './accounts.repository.js';
// For team/: accepting an invitation completes a new member's onboarding (decision 0016) and writes its grant.
export { markUserOnboarded } from './accounts.repository.js';
export { insertGrant } from './merchant-access.repository.js';
export { DISPOSABLE, EMAIL_RULE, isDisposableDomain, parseEmailAddress, type EmailAddress } from './email-address.js';
export { findOrCreateIdentityUser } from './find-or-create-identity-user.js';
export { startSession } from './start-session.js';
export { sessionUserView, type SessionUserView } from './session.js';
export { SessionAnswerSchema, SessionUserSchema } from './session-user.schema.js';
export { listMerchants, type MerchantView } from './list-merchants.js';
