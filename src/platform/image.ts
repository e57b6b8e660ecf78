import type { SharpOptions } from 'sharp';

/**
 * sharp (libvips) is loaded on the first image, not at start-up: only avatar
 * and logo uploads need it, and loading it costs a noticeable part of the
 * time `npm start` takes to answer /healthz (issue 13 item 3).
 */
let loadedSharp: Promise<typeof import('sharp')['default']> | undefined;
function sharpLibrary(): Promise<typeof import('sharp')['default']> {
  loadedSharp ??= import('sharp').then((module) => module.default);
  return loadedSharp;
}
import { fieldError } from './errors.js';

/** SPEC "Limits": PNG or JPEG up to 2048 x 2048 px (said of avatars; logos follow the same rule). */
export const MAX_IMAGE_INPUT_SIDE = 2048;
/**
 * The largest image accepted, in bytes once decoded from base64. A 2048x2048
 * photo is a few MB as JPEG (about 6 MB at quality 100 even for pure noise);
 * past this an image is image_too_large.
 */
export const MAX_IMAGE_BYTES = 10 * 1024 * 1024;
/** The body limit of a route taking such an image: its base64 and room for the JSON around it. Larger bodies are 413. */
export const IMAGE_BODY_LIMIT = Math.ceil(MAX_IMAGE_BYTES / 3) * 4 + 4096;

// With the length a multiple of 4, standard padded base64. (A pattern of
// repeated 4-character groups overflows the regexp stack on a 14 MB body.)
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const JPEG_SIGNATURE = Buffer.from([0xff, 0xd8, 0xff]);
const NOT_AN_IMAGE = 'must be a PNG or JPEG image';
const TOO_MANY_PIXELS = `must be at most ${MAX_IMAGE_INPUT_SIDE} x ${MAX_IMAGE_INPUT_SIDE} pixels`;
const UNDECODABLE = 'does not decode as a PNG or JPEG image (truncated or corrupt)';

/**
 * An uploaded picture (standard, padded base64 of PNG or JPEG bytes) → a PNG
 * that fits in `outputSide` x `outputSide` with no metadata. Refusals, in
 * order: not base64, empty, or not PNG/JPEG by its magic bytes
 * (invalid_image); over MAX_IMAGE_BYTES (image_too_large); a header over
 * 2048 px on a side (image_too_large), read before any pixel is decoded, so a
 * small file claiming a huge canvas (a decompression bomb) is refused; pixels
 * that do not decode (invalid_image).
 */
export async function normaliseImage(imageBase64: string, outputSide: number, field: string): Promise<Buffer> {
  if (imageBase64.length % 4 !== 0 || !BASE64.test(imageBase64)) throw fieldError('invalid_image', field, 'must be standard base64, padded with =');
  const bytes = Buffer.from(imageBase64, 'base64');
  const format = formatOf(bytes);
  if (format === undefined) throw fieldError('invalid_image', field, NOT_AN_IMAGE);
  if (bytes.length > MAX_IMAGE_BYTES) throw fieldError('image_too_large', field, `must be at most ${MAX_IMAGE_BYTES} bytes once decoded`);

  const limit = { limitInputPixels: MAX_IMAGE_INPUT_SIDE * MAX_IMAGE_INPUT_SIDE, failOn: 'error' as const };
  const header = await readHeader(bytes, limit, field);
  if (header.format !== format) throw fieldError('invalid_image', field, NOT_AN_IMAGE);
  if (header.width > MAX_IMAGE_INPUT_SIDE || header.height > MAX_IMAGE_INPUT_SIDE) throw fieldError('image_too_large', field, TOO_MANY_PIXELS);

  try {
    // No withMetadata(): EXIF, ICC and text chunks are dropped; rotate() applies
    // the EXIF orientation first so the picture stands as the camera meant.
    const sharp = await sharpLibrary();
    return await sharp(bytes, limit)
      .rotate()
      .resize(outputSide, outputSide, { fit: 'inside', withoutEnlargement: true })
      .png({ compressionLevel: 9 })
      .toBuffer();
  } catch {
    // A truncated or corrupt image whose header looked fine.
    throw fieldError('invalid_image', field, UNDECODABLE);
  }
}

function formatOf(bytes: Buffer): 'png' | 'jpeg' | undefined {
  if (bytes.subarray(0, PNG_SIGNATURE.length).equals(PNG_SIGNATURE)) return 'png';
  if (bytes.subarray(0, JPEG_SIGNATURE.length).equals(JPEG_SIGNATURE)) return 'jpeg';
  return undefined;
}

/**
 * Format and size from the header only. sharp refuses a header whose
 * width x height passes `limitInputPixels` before it decodes anything; that
 * refusal is image_too_large, any other failure invalid_image.
 */
async function readHeader(bytes: Buffer, limit: SharpOptions, field: string): Promise<{ format: string; width: number; height: number }> {
  try {
    const sharp = await sharpLibrary();
    const metadata = await sharp(bytes, limit).metadata();
    return { format: metadata.format, width: metadata.width, height: metadata.height };
  } catch (error) {
    if (error instanceof Error && /pixel limit/i.test(error.message)) throw fieldError('image_too_large', field, TOO_MANY_PIXELS);
    throw fieldError('invalid_image', field, UNDECODABLE);
  }
}
