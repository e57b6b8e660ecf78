import type { Language, Theme } from '../platform/database/schema.js';

export const THEMES: readonly Theme[] = ['dark', 'light', 'system'];
export const LANGUAGES: readonly Language[] = ['en', 'ru'];
/** SPEC leaves it open ("Limits": not shown); as merchant names, in code points. */
export const MAX_DISPLAY_NAME_LENGTH = 100;

const CONTROL = /\p{Cc}/u;

/** SPEC "Profile" as GET and PATCH /profile answer it. */
export interface ProfileView {
  readonly display_name: string;
  readonly preferences: { readonly theme: Theme; readonly language: Language };
  readonly avatar_url: string;
  readonly created_at: string;
}

export interface ProfileRow {
  readonly displayName: string;
  readonly theme: Theme;
  readonly language: Language;
  readonly createdAt: Date;
  /** The normalised avatar (POST /profile/avatar), or null. */
  readonly avatarPng: Uint8Array | null;
}

export function profileView(profile: ProfileRow): ProfileView {
  return {
    display_name: profile.displayName,
    preferences: { theme: profile.theme, language: profile.language },
    avatar_url: profile.avatarPng === null ? '' : avatarUrl(profile.avatarPng),
    created_at: profile.createdAt.toISOString(),
  };
}

/** SPEC "Profile" avatar_url: the stored PNG as an inline data URL. */
export function avatarUrl(png: Uint8Array): string {
  return `data:image/png;base64,${Buffer.from(png).toString('base64')}`;
}

/**
 * A display name: trimmed, at most 100 code points, no control characters
 * (line breaks included). Empty is allowed: it clears the name. Undefined
 * when invalid.
 */
export function parseDisplayName(raw: string): string | undefined {
  const name = raw.trim();
  if ([...name].length > MAX_DISPLAY_NAME_LENGTH || CONTROL.test(name)) return undefined;
  return name;
}
