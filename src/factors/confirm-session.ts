import { meetsMfaRequirement, type SessionPrincipal } from '../platform/http/principal.js';

export interface SessionConfirmation {
  /** The session may make sensitive changes now (SPEC "Authentication" 6). */
  readonly fresh: boolean;
  readonly mfaAt: Date | null;
  /** Until when it may (its last second-factor check + the window); null when that does not apply. */
  readonly freshUntil: Date | null;
}

/**
 * SPEC "Sign-in" POST /auth/confirm: whether the session meets the
 * fresh-authentication requirement. It only reports; it never sets `mfa_at`.
 * A user without a second factor always meets it.
 */
export function confirmSession(session: SessionPrincipal, now: Date, mfaFreshWindowMs: number): SessionConfirmation {
  const freshUntil =
    session.mfaEnrolled === true && session.mfaAt !== null ? new Date(session.mfaAt.getTime() + mfaFreshWindowMs) : null;
  return { fresh: meetsMfaRequirement(session, 'fresh', now, mfaFreshWindowMs), mfaAt: session.mfaAt, freshUntil };
}
