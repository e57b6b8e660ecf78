/**
 * Passkeys: the pure rules (issue 10, item 5). A passkey is a WebAuthn
 * credential used as a second factor; the ceremonies are verified by
 * `@simplewebauthn/server` in the use cases, with the relying party derived
 * here from PUBLIC_URL.
 */

/**
 * `@simplewebauthn/server`, loaded by the first ceremony rather than at
 * start-up: it is the heaviest module the app imports and most requests never
 * touch a passkey (issue 13 item 3, start-up time).
 */
let loadedWebAuthn: Promise<typeof import('@simplewebauthn/server')> | undefined;
export function webAuthn(): Promise<typeof import('@simplewebauthn/server')> {
  loadedWebAuthn ??= import('@simplewebauthn/server');
  return loadedWebAuthn;
}

/** How long a begun ceremony can be finished. Browsers time out at the options' `timeout`, the same. */
export const PASSKEY_CHALLENGE_TTL_MS = 5 * 60 * 1000;

export const MAX_PASSKEY_NAME_LENGTH = 64;
/** What `invalid_name` says of a passkey name `normalizePasskeyName` refuses. */
export const PASSKEY_NAME_RULE = `must be 1 to ${MAX_PASSKEY_NAME_LENGTH} characters, not only spaces, without control characters`;
export const DEFAULT_PASSKEY_NAME = 'Passkey';

export type PasskeyPurpose = 'register' | 'authenticate';

/** The relying party: RP id is PUBLIC_URL's host name (no port, as WebAuthn wants), origin its origin. */
export interface RelyingParty {
  readonly rpId: string;
  readonly origin: string;
}

export function relyingPartyOf(publicUrl: string): RelyingParty {
  const url = new URL(publicUrl);
  return { rpId: url.hostname, origin: url.origin };
}

/**
 * A passkey's name trimmed; null when empty, too long or holding control
 * characters (SPEC invalid_name: "Name empty or too long").
 */
export function normalizePasskeyName(name: string): string | null {
  const trimmed = name.trim();
  if (trimmed.length === 0 || [...trimmed].length > MAX_PASSKEY_NAME_LENGTH) return null;
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
  if (/[\u0000-\u001f\u007f-\u009f]/.test(trimmed)) return null;
  return trimmed;
}

const KNOWN_TRANSPORTS = new Set(['ble', 'cable', 'hybrid', 'internal', 'nfc', 'smart-card', 'usb']);

/** The transport hints worth keeping from a client's answer: known names only, each once. */
export function keptTransports(transports: unknown): string[] {
  if (!Array.isArray(transports)) return [];
  return [...new Set(transports.filter((transport): transport is string => typeof transport === 'string' && KNOWN_TRANSPORTS.has(transport)))];
}

/** The `passkeys` items of the security summary and the answers of these routes (SPEC "Profile"). */
export interface PasskeyView {
  readonly id: string;
  readonly name: string;
  readonly created_at: string;
}

export function passkeyView(passkey: { id: string; name: string; createdAt: Date }): PasskeyView {
  return { id: passkey.id, name: passkey.name, created_at: passkey.createdAt.toISOString() };
}
