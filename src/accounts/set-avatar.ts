import type { Executor } from '../platform/database/database.js';
import { IvoryError } from '../platform/errors.js';
import { normaliseAvatar } from './avatar.js';
import { storeAvatar } from './profile.repository.js';
import { avatarUrl } from './profile.js';

/**
 * SPEC "Account" POST /profile/avatar: the image is checked and normalised
 * (avatar.ts) before anything is written, so a refused image leaves the
 * previous avatar in place; the answer is the URL GET /profile shows from now on.
 */
export async function setAvatar(db: Executor, userId: string, imageBase64: string): Promise<{ avatar_url: string }> {
  const png = await normaliseAvatar(imageBase64);
  if (!(await storeAvatar(db, userId, png))) throw new IvoryError('unauthorized');
  return { avatar_url: avatarUrl(png) };
}
