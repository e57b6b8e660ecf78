import type { Executor } from '../platform/database/database.js';
import type { Language, Theme } from '../platform/database/schema.js';
import { IvoryError, fieldError } from '../platform/errors.js';
import { findProfile, updateProfile } from './profile.repository.js';
import { LANGUAGES, MAX_DISPLAY_NAME_LENGTH, THEMES, parseDisplayName, profileView, type ProfileView } from './profile.js';

export interface ProfileChange {
  readonly displayName?: string;
  readonly theme?: string;
  readonly language?: string;
}

/**
 * SPEC "Account" PATCH /profile: omitted fields keep their values. Any invalid
 * field refuses the whole change with invalid_profile, and nothing is written.
 */
export async function changeProfile(db: Executor, userId: string, change: ProfileChange): Promise<ProfileView> {
  const displayName = change.displayName === undefined ? undefined : parseDisplayName(change.displayName);
  if (change.displayName !== undefined && displayName === undefined) {
    throw fieldError('invalid_profile', 'display_name', `must be at most ${MAX_DISPLAY_NAME_LENGTH} characters on one line, without control characters`);
  }
  if (change.theme !== undefined && !(THEMES as readonly string[]).includes(change.theme)) {
    throw fieldError('invalid_profile', 'preferences.theme', `must be one of ${THEMES.join(', ')}`);
  }
  if (change.language !== undefined && !(LANGUAGES as readonly string[]).includes(change.language)) {
    throw fieldError('invalid_profile', 'preferences.language', `must be one of ${LANGUAGES.join(', ')}`);
  }

  await updateProfile(db, userId, {
    ...(displayName === undefined ? {} : { displayName }),
    ...(change.theme === undefined ? {} : { theme: change.theme as Theme }),
    ...(change.language === undefined ? {} : { language: change.language as Language }),
  });
  const profile = await findProfile(db, userId);
  if (profile === undefined) throw new IvoryError('unauthorized');
  return profileView(profile);
}
