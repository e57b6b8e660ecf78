import type { Expression } from 'kysely';
import type { Executor } from '../platform/database/database.js';
import type { MerchantServiceWalletsTable } from '../platform/database/schema.js';

export type WalletFamily = MerchantServiceWalletsTable['family'];

/** What a merchant's shops can pay into, and whether Tron is on for it (decision 0017). */
export interface MerchantPayoutSetup {
  /** The service wallet address per family; a family absent is not set up. */
  readonly wallets: Readonly<Partial<Record<WalletFamily, string>>>;
  readonly tronEnabled: boolean;
}

export async function findMerchantPayoutSetup(db: Executor, merchantId: string): Promise<MerchantPayoutSetup> {
  const [wallets, merchant] = await Promise.all([
    selectServiceWallets(db, merchantId).execute(),
    db.selectFrom('merchants').select('tron_enabled').where('id', '=', merchantId).executeTakeFirst(),
  ]);
  return payoutSetupOf(wallets, merchant?.tron_enabled ?? false);
}

export function selectServiceWallets(db: Executor, merchantId: string | Expression<string>) {
  return db.selectFrom('merchant_service_wallets').select(['family', 'address']).where('merchant_id', '=', merchantId);
}

export function payoutSetupOf(wallets: readonly { family: WalletFamily; address: string }[], tronEnabled: boolean): MerchantPayoutSetup {
  return { wallets: Object.fromEntries(wallets.map((row) => [row.family, row.address])), tronEnabled };
}

/** Null removes the family's wallet. */
export async function writeServiceWallet(db: Executor, merchantId: string, family: WalletFamily, address: string | null, now: Date): Promise<void> {
  if (address === null) {
    await db.deleteFrom('merchant_service_wallets').where('merchant_id', '=', merchantId).where('family', '=', family).execute();
    return;
  }
  await db
    .insertInto('merchant_service_wallets')
    .values({ merchant_id: merchantId, family, address, created_at: now, updated_at: now })
    .onConflict((conflict) => conflict.columns(['merchant_id', 'family']).doUpdateSet({ address, updated_at: now }))
    .execute();
}

export async function writeTronEnabled(db: Executor, merchantId: string, enabled: boolean): Promise<void> {
  await db.updateTable('merchants').set({ tron_enabled: enabled }).where('id', '=', merchantId).execute();
}

/** Whether the address is any merchant's service wallet on that family (a shop must not name one as its recipient). */
export async function isServiceWalletAddress(db: Executor, family: WalletFamily, address: string): Promise<boolean> {
  const row = await db.selectFrom('merchant_service_wallets').select('merchant_id').where('family', '=', family).where('address', '=', address).executeTakeFirst();
  return row !== undefined;
}
