import { IMAGE_BODY_LIMIT, MAX_IMAGE_BYTES, MAX_IMAGE_INPUT_SIDE, normaliseImage } from '../platform/image.js';

/** SPEC "Limits": PNG or JPEG up to 2048 x 2048 px. */
export const MAX_AVATAR_INPUT_SIDE = MAX_IMAGE_INPUT_SIDE;
/** What is stored and shown: a PNG that fits in this square, aspect ratio kept. */
export const AVATAR_OUTPUT_SIDE = 256;
/** The largest image accepted, in bytes once decoded from base64. */
export const MAX_AVATAR_BYTES = MAX_IMAGE_BYTES;
/** POST /profile/avatar's body limit; larger bodies are 413. */
export const AVATAR_BODY_LIMIT = IMAGE_BODY_LIMIT;

/** SPEC "Account" POST /profile/avatar: the image as sent → a PNG of at most 256x256 with no metadata (platform/image.ts). */
export async function normaliseAvatar(imageBase64: string): Promise<Buffer> {
  return normaliseImage(imageBase64, AVATAR_OUTPUT_SIDE, 'image_base64');
}
