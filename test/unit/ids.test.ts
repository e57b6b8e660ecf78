import { describe, expect, expectTypeOf, it } from 'vitest';
import type { Issuance, IssuanceEntry } from '../../src/issuances/index.js';
import { findIssuanceById, findShopIssuance } from '../../src/issuances/index.js';
import type { Payout } from '../../src/payouts/index.js';
import type { Executor } from '../../src/platform/database/database.js';
import { asId, isUuid, type GroupId, type IssuanceId, type MerchantId, type PayoutId, type ShopId } from '../../src/platform/ids.js';

/**
 * Record ids are UUID text at run time and typed apart by what they name
 * (STYLE: distinct id types from one place), so that swapping a shop id for an
 * issuance id is a compile error. The `@ts-expect-error` lines are the test:
 * `npm run typecheck` fails if any of them compiles.
 */
describe('isUuid', () => {
  // The one check every use case runs on an id that arrives as text; it reads
  // a uuid as PostgreSQL does (any case, any version), and nothing else.
  it('accepts the 8-4-4-4-12 hex form in any case and of any version', () => {
    expect(isUuid('0b9f6a4e-8a3c-4d54-9a55-3d6b5c1e2f70')).toBe(true);
    expect(isUuid('0B9F6A4E-8A3C-4D54-9A55-3D6B5C1E2F70')).toBe(true);
    expect(isUuid('00000000-0000-0000-0000-000000000000')).toBe(true);
    expect(isUuid('0b9f6a4e-8a3c-7d54-ca55-3d6b5c1e2f70')).toBe(true);
  });

  it('refuses any other spelling', () => {
    for (const text of [
      '',
      'not-a-uuid',
      '0b9f6a4e8a3c4d549a553d6b5c1e2f70',
      '{0b9f6a4e-8a3c-4d54-9a55-3d6b5c1e2f70}',
      ' 0b9f6a4e-8a3c-4d54-9a55-3d6b5c1e2f70',
      '0b9f6a4e-8a3c-4d54-9a55-3d6b5c1e2f70\n',
      '0b9f6a4e-8a3c-4d54-9a55-3d6b5c1e2f7',
      '0b9f6a4e-8a3c-4d54-9a55-3d6b5c1e2f70a',
      '0g9f6a4e-8a3c-4d54-9a55-3d6b5c1e2f70',
    ]) expect(isUuid(text), JSON.stringify(text)).toBe(false);
  });
});

describe('branded record ids', () => {
  const shopId = asId<ShopId>('0b9f6a4e-8a3c-4d54-9a55-3d6b5c1e2f70');
  const issuanceId = asId<IssuanceId>('6f1d2c3b-4a5e-4f60-8b7c-9d0e1f2a3b4c');

  it('are the same text at run time', () => {
    expect(shopId).toBe('0b9f6a4e-8a3c-4d54-9a55-3d6b5c1e2f70');
    expect(isUuid(issuanceId)).toBe(true);
  });

  it('cannot stand for one another, nor be bare text', () => {
    expectTypeOf<ShopId>().not.toEqualTypeOf<IssuanceId>();
    expectTypeOf<IssuanceId>().toMatchTypeOf<string>();
    expectTypeOf<string>().not.toMatchTypeOf<IssuanceId>();

    // Never called: the calls only have to typecheck, or fail to, as marked.
    const calls = async (db: Executor) => {
      await findShopIssuance(db, shopId, issuanceId);
      // @ts-expect-error a shop id where the issuance id goes, and back
      await findShopIssuance(db, issuanceId, shopId);
      // @ts-expect-error bare text is not an issuance id
      await findIssuanceById(db, '6f1d2c3b-4a5e-4f60-8b7c-9d0e1f2a3b4c');
      // @ts-expect-error a group id is not an issuance id
      await findIssuanceById(db, asId<GroupId>('6f1d2c3b-4a5e-4f60-8b7c-9d0e1f2a3b4c'));
    };
    expect(typeof calls).toBe('function');
  });

  it('type the models: an issuance, a payout and what they carry', () => {
    expectTypeOf<Issuance['id']>().toEqualTypeOf<IssuanceId>();
    expectTypeOf<Issuance['shopId']>().toEqualTypeOf<ShopId>();
    expectTypeOf<Issuance['merchantId']>().toEqualTypeOf<MerchantId>();
    expectTypeOf<Issuance['groupId']>().toEqualTypeOf<GroupId | null>();
    expectTypeOf<IssuanceEntry['issuanceId']>().toEqualTypeOf<IssuanceId>();
    expectTypeOf<Payout['id']>().toEqualTypeOf<PayoutId>();
    expectTypeOf<Payout['shopId']>().toEqualTypeOf<ShopId>();

    const payoutId = asId<PayoutId>('6f1d2c3b-4a5e-4f60-8b7c-9d0e1f2a3b4c');
    // @ts-expect-error a payout id is not an issuance id
    const wrong: IssuanceId = payoutId;
    expect(wrong).toBe(payoutId);
  });
});
