/**
 * Sign-in through an OpenID Connect identity provider (SPEC "Sign-in":
 * `GET /auth/google`, `/auth/google/callback`; decision 0014). Users,
 * identities and sessions are `accounts/`'s, reached through its door.
 */
export { googleSignInRoutes as identityProviderRoutes } from './google-sign-in.routes.js';
