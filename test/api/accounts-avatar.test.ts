import { randomBytes } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import sharp, { type Metadata } from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AVATAR_BODY_LIMIT, MAX_AVATAR_BYTES } from '../../src/accounts/avatar.js';
import { authed, createTestApp, type TestApp } from '../support/app.js';
import { createApiKey, createOwnerWithShop } from '../support/factories.js';
import { signInWithWallet } from '../support/wallet.js';
import { expectErrorEnvelope } from '../support/error-envelope.js';

// Issue 10, item 6; SPEC "Account" POST /profile/avatar (PNG or JPEG up to
// 2048x2048 px, normalised inline PNG data URL; 400 image_too_large,
// invalid_image, json_content_type_required, invalid_json), "Profile"
// avatar_url, "Limits" (avatar image), "Authentication" 4 (session only);
// decision 0013.

const AVATAR = '/api/v1/profile/avatar';
const DATA_URL = /^data:image\/png;base64,([A-Za-z0-9+/]+={0,2})$/;

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(async () => {
  await app.close();
});

function expectError(response: { statusCode: number; json: () => unknown }, status: number, code: string) {
  expect(response.statusCode, JSON.stringify(response.json())).toBe(status);
  expectErrorEnvelope(response.json(), code);
}

function upload(token: string, payload: unknown, headers: Record<string, string> = {}) {
  return app.request({
    method: 'POST',
    url: AVATAR,
    headers: { ...authed(token), ...headers },
    payload: payload as Record<string, unknown>,
  });
}

async function storedAvatar(userId: string): Promise<Buffer | null> {
  const row = await app.context.db.selectFrom('users').select('avatar_png').where('id', '=', userId).executeTakeFirstOrThrow();
  return row.avatar_png === null ? null : Buffer.from(row.avatar_png);
}

/** A picture with some structure, so that resizing has something to keep. */
async function picture(width: number, height: number, format: 'png' | 'jpeg', options: { noise?: boolean } = {}): Promise<Buffer> {
  const channels = 3;
  const raw = options.noise === true ? randomBytes(width * height * channels) : Buffer.alloc(width * height * channels);
  if (options.noise !== true) {
    for (let y = 0; y < height; y += 1) {
      for (let x = 0; x < width; x += 1) {
        const at = (y * width + x) * channels;
        raw[at] = (x * 255) / width;
        raw[at + 1] = (y * 255) / height;
        raw[at + 2] = 128;
      }
    }
  }
  const image = sharp(raw, { raw: { width, height, channels } });
  return format === 'png' ? image.png().toBuffer() : image.jpeg({ quality: 100 }).toBuffer();
}

/** The PNG inside a data URL answer, checked with sharp. */
async function decodeAnswer(avatarUrl: string): Promise<{ png: Buffer; metadata: Metadata }> {
  const match = DATA_URL.exec(avatarUrl);
  if (match?.[1] === undefined) throw new Error(`not an inline PNG data URL: ${avatarUrl.slice(0, 40)}`);
  const png = Buffer.from(match[1], 'base64');
  return { png, metadata: await sharp(png).metadata() };
}

// ----------------------------------------------------------- hand-made PNGs

function crc32(bytes: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit += 1) crc = crc & 1 ? 0xedb88320 ^ (crc >>> 1) : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/**
 * A well-formed PNG header claiming `width` x `height` 8-bit grey pixels with a
 * tiny IDAT: a decompression bomb when the canvas is huge.
 */
function pngClaiming(width: number, height: number): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 0; // greyscale
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.alloc(1024))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

describe('SPEC "Account" POST /profile/avatar: accepted images', () => {
  it('a PNG is normalised to a PNG of at most 256x256 (aspect kept), answered as an inline data URL that GET /profile shows', async () => {
    const { token, userId } = await signInWithWallet(app);
    const response = await upload(token, { image_base64: (await picture(600, 400, 'png')).toString('base64') });
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json<{ avatar_url: string }>();
    expect(Object.keys(body)).toEqual(['avatar_url']);
    const { png, metadata } = await decodeAnswer(body.avatar_url);
    expect(metadata).toMatchObject({ format: 'png', width: 256, height: 171 });
    expect(await storedAvatar(userId)).toEqual(png);

    const profile = await app.request({ method: 'GET', url: '/api/v1/profile', headers: authed(token) });
    expect(profile.json()).toMatchObject({ avatar_url: body.avatar_url });
  });

  it('a 2048x2048 JPEG at quality 100 (noise: the largest legitimate kind) fits the body limit and becomes a 256x256 PNG', async () => {
    const { token } = await signInWithWallet(app);
    const jpeg = await picture(2048, 2048, 'jpeg', { noise: true });
    expect(jpeg.length).toBeLessThan(MAX_AVATAR_BYTES);
    expect(jpeg.length).toBeGreaterThan(1024 * 1024);
    const response = await upload(token, { image_base64: jpeg.toString('base64') });
    expect(response.statusCode, response.body).toBe(200);
    const { metadata } = await decodeAnswer(response.json<{ avatar_url: string }>().avatar_url);
    expect(metadata).toMatchObject({ format: 'png', width: 256, height: 256 });
  });

  it('metadata is stripped (EXIF, ICC) and the EXIF orientation applied; a small image is not enlarged', async () => {
    const { token } = await signInWithWallet(app);
    // 40x20 stored, orientation 6 (rotate 90° clockwise to view): shown as 20x40.
    const jpeg = await sharp(await picture(40, 20, 'jpeg'))
      .withMetadata({ orientation: 6, exif: { IFD0: { Copyright: 'secret camera owner', Software: 'test' } } })
      .jpeg()
      .toBuffer();
    expect((await sharp(jpeg).metadata()).exif).toBeDefined();
    const response = await upload(token, { image_base64: jpeg.toString('base64') });
    expect(response.statusCode, response.body).toBe(200);
    const { png, metadata } = await decodeAnswer(response.json<{ avatar_url: string }>().avatar_url);
    expect(metadata).toMatchObject({ format: 'png', width: 20, height: 40 });
    expect(metadata.exif).toBeUndefined();
    expect(metadata.icc).toBeUndefined();
    expect(metadata.orientation).toBeUndefined();
    expect(png.includes(Buffer.from('secret camera owner'))).toBe(false);
  });

  it('exactly 2048 px on a side is allowed; a new avatar replaces the old one', async () => {
    const { token, userId } = await signInWithWallet(app);
    const first = await upload(token, { image_base64: (await picture(2048, 16, 'png')).toString('base64') });
    expect(first.statusCode, first.body).toBe(200);
    expect((await decodeAnswer(first.json<{ avatar_url: string }>().avatar_url)).metadata).toMatchObject({ width: 256, height: 2 });
    const second = await upload(token, { image_base64: (await picture(10, 10, 'png')).toString('base64') });
    expect(second.statusCode).toBe(200);
    const { png } = await decodeAnswer(second.json<{ avatar_url: string }>().avatar_url);
    expect(await storedAvatar(userId)).toEqual(png);
  });
});

describe('SPEC "Account" POST /profile/avatar: refusals store nothing', () => {
  /** A user with a known avatar, to show that a refusal leaves it as it was. */
  async function userWithAvatar() {
    const signedIn = await signInWithWallet(app);
    const set = await upload(signedIn.token, { image_base64: (await picture(8, 8, 'png')).toString('base64') });
    expect(set.statusCode).toBe(200);
    const before = await storedAvatar(signedIn.userId);
    expect(before).not.toBeNull();
    return { ...signedIn, before };
  }

  it('400 image_too_large: a side over 2048 px (PNG or JPEG), read from the header', async () => {
    const { token, userId, before } = await userWithAvatar();
    for (const image of [await picture(2049, 8, 'png'), await picture(8, 2049, 'jpeg'), await picture(2100, 2100, 'jpeg')]) {
      expectError(await upload(token, { image_base64: image.toString('base64') }), 400, 'image_too_large');
    }
    expect(await storedAvatar(userId)).toEqual(before);
  });

  it('400 image_too_large: a decompression bomb (a tiny PNG whose header claims 50,000 x 50,000) is refused before decoding', async () => {
    const { token, userId, before } = await userWithAvatar();
    const bomb = pngClaiming(50_000, 50_000);
    expect(bomb.length).toBeLessThan(200);
    expectError(await upload(token, { image_base64: bomb.toString('base64') }), 400, 'image_too_large');
    // Within the pixel count but wider than 2048: still refused from the header.
    expectError(await upload(token, { image_base64: pngClaiming(40_000, 1).toString('base64') }), 400, 'image_too_large');
    expect(await storedAvatar(userId)).toEqual(before);
  });

  it('400 image_too_large: more than the byte limit once decoded, though within the body limit', async () => {
    const { token, userId, before } = await userWithAvatar();
    const oversized = Buffer.concat([await picture(8, 8, 'png'), Buffer.alloc(MAX_AVATAR_BYTES)]);
    const base64 = oversized.toString('base64');
    expect(base64.length).toBeLessThan(AVATAR_BODY_LIMIT - 100);
    expectError(await upload(token, { image_base64: base64 }), 400, 'image_too_large');
    expect(await storedAvatar(userId)).toEqual(before);
  });

  it('413 payload_too_large: a body over the route\'s limit', async () => {
    const { token, userId, before } = await userWithAvatar();
    const response = await upload(token, { image_base64: 'A'.repeat(AVATAR_BODY_LIMIT + 4) });
    expectError(response, 413, 'payload_too_large');
    expect(await storedAvatar(userId)).toEqual(before);
  });

  it('400 invalid_image: not PNG or JPEG by its magic bytes, not base64, empty, truncated or corrupt', async () => {
    const { token, userId, before } = await userWithAvatar();
    const jpeg = await picture(64, 64, 'jpeg');
    const png = await picture(64, 64, 'png');
    const gif = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
    const webp = await sharp(png).webp().toBuffer();
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>');
    const candidates = [
      gif.toString('base64'),
      webp.toString('base64'),
      svg.toString('base64'),
      Buffer.from('hello, not an image').toString('base64'),
      '',
      'not base64!',
      `data:image/png;base64,${png.toString('base64')}`,
      png.toString('base64').slice(0, -1),
      png.toString('base64').replace(/[A-Za-z]/, '-'),
      `${png.toString('base64')} `,
      // Right magic bytes, nothing sensible after them.
      Buffer.concat([png.subarray(0, 8), randomBytes(200)]).toString('base64'),
      Buffer.concat([jpeg.subarray(0, 3), randomBytes(200)]).toString('base64'),
      // A JPEG cut short: its header reads, its pixels do not.
      jpeg.subarray(0, Math.floor(jpeg.length / 2)).toString('base64'),
      // A PNG with JPEG magic in front is neither.
      Buffer.concat([Buffer.from([0xff, 0xd8, 0xff]), png]).toString('base64'),
    ];
    for (const image_base64 of candidates) {
      expectError(await upload(token, { image_base64 }), 400, 'invalid_image');
    }
    for (const payload of [{ image_base64: 5 }, { image_base64: null }, { image_base64: ['x'] }, {}]) {
      expectError(await upload(token, payload), 400, 'invalid_image');
    }
    expect(await storedAvatar(userId)).toEqual(before);
  });

  it('400 invalid_json and json_content_type_required', async () => {
    const { token, userId, before } = await userWithAvatar();
    const image_base64 = (await picture(8, 8, 'png')).toString('base64');
    expectError(await upload(token, { image_base64, url: 'https://example.com/a.png' }), 400, 'invalid_json');
    expectError(await upload(token, '{"image_base64":', { 'content-type': 'application/json' }), 400, 'invalid_json');
    expectError(await upload(token, `image_base64=${image_base64}`, { 'content-type': 'text/plain' }), 400, 'json_content_type_required');
    expect(await storedAvatar(userId)).toEqual(before);
  });

  it('SPEC "Authentication" 4: an API key is refused (403 forbidden), no credential is 401, and nothing is stored', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const writeKey = await createApiKey(app.context.db, { id: owner.shop.id, merchantId: owner.merchant.id }, { scopes: ['write'] });
    const image_base64 = (await picture(8, 8, 'png')).toString('base64');
    expectError(await upload(owner.key.token, { image_base64 }), 403, 'forbidden');
    expectError(await upload(writeKey.token, { image_base64 }), 403, 'forbidden');
    expectError(await app.request({ method: 'POST', url: AVATAR, payload: { image_base64 } }), 401, 'unauthorized');
    // Unauthenticated callers are refused before their body is read: no 413 for them.
    expectError(await app.request({ method: 'POST', url: AVATAR, payload: { image_base64: 'A'.repeat(AVATAR_BODY_LIMIT + 4) } }), 401, 'unauthorized');
    expect(await storedAvatar(owner.user.id)).toBeNull();
  });

  it('other routes keep the 1 MB body limit', async () => {
    const { token } = await signInWithWallet(app);
    const response = await app.request({
      method: 'PATCH',
      url: '/api/v1/profile',
      headers: authed(token),
      payload: { display_name: 'x'.repeat(1024 * 1024 + 10) },
    });
    expectError(response, 413, 'payload_too_large');
  });
});
