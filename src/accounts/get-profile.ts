import type { Executor } from '../platform/database/database.js';
import { IvoryError } from '../platform/errors.js';
import { findProfile } from './profile.repository.js';
import { profileView, type ProfileView } from './profile.js';

/** SPEC "Account" GET /profile. */
export async function getProfile(db: Executor, userId: string): Promise<ProfileView> {
  const profile = await findProfile(db, userId);
  if (profile === undefined) throw new IvoryError('unauthorized');
  return profileView(profile);
}
