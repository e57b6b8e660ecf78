/** What other modules may use of accounts. */
export { accountsRoutes } from './accounts.routes.js';
export { resolvePrincipal } from './resolve-principal.js';
export { requireOnboarded } from './require-onboarded.js';
