import { randomBytes } from 'node:crypto';
import sharp from 'sharp';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LOGO_OUTPUT_SIDE } from '../../src/merchants/set-shop-branding.js';
import { IMAGE_BODY_LIMIT, MAX_IMAGE_BYTES } from '../../src/platform/image.js';
import { authed, createTestApp, newIdempotencyKey, type TestApp } from '../support/app.js';
import { createOwnerWithShop } from '../support/factories.js';
import { countRows, errorCode, json, member } from './merchants-helpers.js';
import { openInvoice, usdc } from './issuances-helpers.js';

// Issue 11 item 3; SPEC "Shops" PATCH /shops/{id}/branding (S owner, I; name
// and logo only, never the payout recipient), "Public" GET /assets/{id}
// (image/png, immutable, cacheable; 404 not_found), "Checkout" branding,
// "Errors"/"Limits" (image_too_large / invalid_image); decision 0017.

let app: TestApp;
let owner: Awaited<ReturnType<typeof createOwnerWithShop>>;

beforeAll(async () => {
  app = await createTestApp();
});
afterAll(async () => {
  await app.close();
});
beforeEach(async () => {
  owner = await createOwnerWithShop(app.context.db);
});

/** A real picture made by sharp: a gradient, with EXIF and a comment where the format carries them. */
async function picture(width: number, height: number, format: 'png' | 'jpeg'): Promise<Buffer> {
  const raw = Buffer.alloc(width * height * 3);
  for (let at = 0; at < raw.length; at += 3) {
    const pixel = at / 3;
    raw[at] = ((pixel % width) * 255) / width;
    raw[at + 1] = (Math.floor(pixel / width) * 255) / height;
    raw[at + 2] = 90;
  }
  const image = sharp(raw, { raw: { width, height, channels: 3 } }).withMetadata({ exif: { IFD0: { Copyright: 'secret-camera-owner' } } });
  return format === 'png' ? image.png().toBuffer() : image.jpeg({ quality: 90 }).toBuffer();
}

function patch(payload: unknown, token = owner.session.token, key = newIdempotencyKey(), shopId = owner.shop.id) {
  return app.request({ method: 'PATCH', url: `/api/v1/shops/${shopId}/branding`, headers: json(authed(token, key)), payload: payload as Record<string, unknown> });
}

async function storedShop() {
  return app.context.db
    .selectFrom('shops')
    .select(['name', 'branding_name', 'branding_logo_asset_id', 'recipient', 'delegate', 'payout_target', 'solana_recipient', 'tron_recipient'])
    .where('id', '=', owner.shop.id)
    .executeTakeFirstOrThrow();
}

/** A refused request: its status and code, and proof that nothing stored changed. */
async function refused(call: () => Promise<{ statusCode: number; json(): unknown }>) {
  const before = { shop: await storedShop(), assets: await countRows(app.context.db, 'branding_assets'), records: await countRows(app.context.db, 'idempotency_records') };
  const response = await call();
  expect({ shop: await storedShop(), assets: await countRows(app.context.db, 'branding_assets'), records: await countRows(app.context.db, 'idempotency_records') }).toEqual(before);
  return { status: response.statusCode, code: errorCode(response) };
}

function assetIdOf(logoUrl: string): string {
  const match = /^http:\/\/ivory\.test\/api\/v1\/assets\/([0-9a-f-]{36})$/.exec(logoUrl);
  expect(match, logoUrl).not.toBeNull();
  return match![1]!;
}

describe('PATCH /shops/{id}/branding', () => {
  for (const format of ['png', 'jpeg'] as const) {
    it(`a ${format.toUpperCase()} logo is normalised to a PNG without metadata, at most ${LOGO_OUTPUT_SIDE}px, served immutable by GET /assets/{id}`, async () => {
      const original = await picture(1200, 600, format);
      expect(original.includes('secret-camera-owner')).toBe(true);
      const response = await patch({ name: 'Acme Coffee', logo: original.toString('base64') });
      expect(response.statusCode, response.body).toBe(200);
      const body = response.json();
      expect(body).toEqual({ shop_id: owner.shop.id, name: 'Acme Coffee', logo_url: expect.any(String) });

      const assetId = assetIdOf(body.logo_url);
      expect((await storedShop()).branding_logo_asset_id).toBe(assetId);
      const asset = await app.request({ method: 'GET', url: `/api/v1/assets/${assetId}` });
      expect(asset.statusCode).toBe(200);
      expect(asset.headers['content-type']).toBe('image/png');
      expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      const metadata = await sharp(asset.rawPayload).metadata();
      expect(metadata).toMatchObject({ format: 'png', width: LOGO_OUTPUT_SIDE, height: LOGO_OUTPUT_SIDE / 2 });
      expect(metadata.exif).toBeUndefined();
      expect(asset.rawPayload.includes('secret-camera-owner')).toBe(false);
    });
  }

  it('the checkout view shows the branding name and logo after PATCH (SPEC "Checkout" branding)', async () => {
    const invoice = await openInvoice(app, owner.key.token, owner.shop.id, usdc(10));
    const before = (await app.request({ method: 'GET', url: `/api/v1/checkout/${invoice.public_id}` })).json();
    expect(before.branding).toEqual({ name: 'Test shop' });

    const logo = (await picture(64, 64, 'png')).toString('base64');
    const body = (await patch({ name: 'Acme Coffee', logo })).json();
    const after = (await app.request({ method: 'GET', url: `/api/v1/checkout/${invoice.public_id}` })).json();
    expect(after.branding).toEqual({ name: 'Acme Coffee', logo_url: body.logo_url });

    // null puts the shop's own name back and removes the logo.
    expect((await patch({ name: null, logo: null })).json()).toEqual({ shop_id: owner.shop.id, name: 'Test shop', logo_url: null });
    const cleared = (await app.request({ method: 'GET', url: `/api/v1/checkout/${invoice.public_id}` })).json();
    expect(cleared.branding).toEqual({ name: 'Test shop' });
  });

  it('branding never touches the payout recipient, delegate, targets or Solana/Tron recipients', async () => {
    await app.context.db
      .updateTable('shops')
      .set({ delegate: '0x52908400098527886E0F7030069857D2E4169EE7', solana_recipient: 'So1anaRecipient', tron_recipient: 'TronRecipient' })
      .where('id', '=', owner.shop.id)
      .execute();
    const { recipient, delegate, payout_target, solana_recipient, tron_recipient } = await storedShop();
    expect((await patch({ name: 'New name', logo: (await picture(32, 32, 'jpeg')).toString('base64') })).statusCode).toBe(200);
    expect((await patch({ logo: null })).statusCode).toBe(200);
    expect(await storedShop()).toMatchObject({ recipient, delegate, payout_target, solana_recipient, tron_recipient, branding_name: 'New name' });
  });

  it('omitted fields stay: a logo-only PATCH keeps the name; the same logo again reuses its asset', async () => {
    const logo = (await picture(40, 40, 'png')).toString('base64');
    expect((await patch({ name: 'Kept' })).statusCode).toBe(200);
    const first = (await patch({ logo })).json();
    expect(first.name).toBe('Kept');
    const assets = await countRows(app.context.db, 'branding_assets');
    const second = (await patch({ logo })).json();
    expect(second.logo_url).toBe(first.logo_url);
    expect(await countRows(app.context.db, 'branding_assets')).toBe(assets);
  });

  it('is idempotent (SPEC "Authentication" 7): same key and body replays; another body is 409; no key is 400', async () => {
    const key = newIdempotencyKey();
    const first = await patch({ name: 'One' }, owner.session.token, key);
    await app.context.db.updateTable('shops').set({ branding_name: 'Changed meanwhile' }).where('id', '=', owner.shop.id).execute();
    const replay = await patch({ name: 'One' }, owner.session.token, key);
    expect(replay.statusCode).toBe(200);
    expect(replay.json()).toEqual(first.json());
    expect((await storedShop()).branding_name).toBe('Changed meanwhile');
    expect(await refused(() => patch({ name: 'Two' }, owner.session.token, key))).toEqual({ status: 409, code: 'idempotency_conflict' });
    expect(
      await refused(() =>
        app.request({ method: 'PATCH', url: `/api/v1/shops/${owner.shop.id}/branding`, headers: json(authed(owner.session.token)), payload: { name: 'x' } }),
      ),
    ).toEqual({ status: 400, code: 'idempotency_key_required' });
  });

  it('a non-image, a corrupt image, bad base64 or a wrong type is invalid_image and changes nothing', async () => {
    const png = await picture(50, 50, 'png');
    for (const logo of [
      Buffer.from('just some text, not a picture').toString('base64'),
      Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>').toString('base64'),
      (await sharp({ create: { width: 8, height: 8, channels: 3, background: '#123456' } }).gif().toBuffer()).toString('base64'),
      png.subarray(0, 60).toString('base64'),
      `data:image/png;base64,${png.toString('base64')}`,
      'not base64 at all!',
      '',
      42,
      { bytes: 'x' },
    ]) {
      expect(await refused(() => patch({ logo })), String(logo).slice(0, 40)).toEqual({ status: 400, code: 'invalid_image' });
    }
  });

  it('a picture over 2048 px on a side, or over the byte limit, is image_too_large; a body past the route limit 413', async () => {
    const wide = await sharp({ create: { width: 2049, height: 10, channels: 3, background: '#336699' } }).png().toBuffer();
    expect(await refused(() => patch({ logo: wide.toString('base64') }))).toEqual({ status: 400, code: 'image_too_large' });
    const padded = Buffer.concat([await picture(8, 8, 'png'), Buffer.alloc(MAX_IMAGE_BYTES)]);
    expect(await refused(() => patch({ logo: padded.toString('base64') }))).toEqual({ status: 400, code: 'image_too_large' });
    const huge = randomBytes(Math.ceil(IMAGE_BODY_LIMIT / 4) * 3 + 3).toString('base64');
    expect((await refused(() => patch({ logo: huge }))).status).toBe(413);
  });

  it('invalid_name for an empty or too long name; an empty body invalid_request; unknown fields invalid_json', async () => {
    for (const name of ['', '   ', 'x'.repeat(101), 'a\u0000b', 7]) {
      expect(await refused(() => patch({ name })), String(name)).toEqual({ status: 400, code: 'invalid_name' });
    }
    expect(await refused(() => patch({}))).toEqual({ status: 400, code: 'invalid_request' });
    expect(await refused(() => patch({ name: 'x', recipient: '0x52908400098527886E0F7030069857D2E4169EE7' }))).toEqual({ status: 400, code: 'invalid_json' });
  });

  it('owner session only: developer and viewer 403 forbidden, an API key 403, another merchant\'s owner 404 shop_not_found', async () => {
    const developer = await member(app.context.db, owner.merchant.id, 'developer');
    expect(await refused(() => patch({ name: 'x' }, developer.token))).toEqual({ status: 403, code: 'forbidden' });
    const viewer = await member(app.context.db, owner.merchant.id, 'viewer');
    expect(await refused(() => patch({ name: 'x' }, viewer.token))).toEqual({ status: 403, code: 'forbidden' });
    expect(await refused(() => patch({ name: 'x' }, owner.key.token))).toEqual({ status: 403, code: 'forbidden' });
    const stranger = await createOwnerWithShop(app.context.db);
    expect(await refused(() => patch({ name: 'x' }, stranger.session.token))).toEqual({ status: 404, code: 'shop_not_found' });
    const shopOwner = await member(app.context.db, owner.merchant.id, 'owner', owner.shop.id);
    expect((await patch({ name: 'By shop owner' }, shopOwner.token)).statusCode).toBe(200);
  });

  it('GET /assets/{id}: unknown or malformed id is 404 not_found JSON', async () => {
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
      const response = await app.request({ method: 'GET', url: `/api/v1/assets/${id}` });
      expect(response.statusCode).toBe(404);
      expect(response.json()).toEqual({ error: { code: 'not_found', message: 'not_found' } });
    }
  });
});
