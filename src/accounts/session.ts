import { API_KEY_TOKEN_PREFIX } from '../keys/index.js';
import { newToken } from '../platform/crypto.js';

/** SPEC leaves session lifetime open; 30 days, like common dashboard sessions. */
export const SESSION_LIFETIME_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * A session bearer token. base64url can begin with `ivk_` (about once in
 * 17 million); such a token would be taken for an API key, so draw again.
 */
export function newSessionToken(): string {
  for (;;) {
    const token = newToken();
    if (!token.startsWith(API_KEY_TOKEN_PREFIX)) return token;
  }
}

/** The `user` object of GET /me and of session-creation answers (SPEC "Principal and session"). */
export interface SessionUserView {
  readonly user_id: string;
  readonly onboarding_required: boolean;
  readonly mfa_required: boolean;
  readonly mfa_at: string | null;
}

/**
 * `mfa_required`: this session still owes its user's second factor (the user
 * has one and the session has not passed it); business calls answer
 * mfa_required until it is passed (decision 0011).
 */
export function sessionUserView(user: { id: string; onboardedAt: Date | null; mfaEnrolled?: boolean }, mfaAt: Date | null): SessionUserView {
  return {
    user_id: user.id,
    onboarding_required: user.onboardedAt === null,
    mfa_required: user.mfaEnrolled === true && mfaAt === null,
    mfa_at: mfaAt === null ? null : mfaAt.toISOString(),
  };
}
