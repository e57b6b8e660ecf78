import { addressCodec, CHAIN_FAMILIES } from '../chains/index.js';
import {
  findMerchantPayoutSetup,
  writeServiceWallet,
  writeTronEnabled,
  type MerchantPayoutSetup,
  type WalletFamily,
} from '../merchants/index.js';
import type { Clock } from '../platform/clock.js';
import { inTransaction, type Db, type Executor } from '../platform/database/database.js';
import { fieldError } from '../platform/errors.js';
import { insertAuditEntry } from './admin.repository.js';
import { lockMerchantForOperator } from './get-merchant.js';
import type { OperatorActor } from './operator.js';

/**
 * PATCH /admin/v1/merchants/{id}/payout-setup and `ivory admin wallet`. A
 * family left out stays; null removes that family's service wallet; an
 * address sets it. `tron_enabled` switches Tron for the merchant (SPEC
 * "Errors" merchant_network_disabled). An empty change is `invalid_request`.
 */
export interface PayoutSetupChange {
  readonly service_wallets?: Readonly<Partial<Record<WalletFamily, string | null>>>;
  readonly tron_enabled?: boolean;
}

export interface PayoutSetupView {
  readonly merchant_id: string;
  readonly service_wallets: Readonly<Record<WalletFamily, string | null>>;
  readonly tron_enabled: boolean;
}

/**
 * The merchant's service wallet: where shops with a `wallet` payout target are
 * paid (SPEC "Shop"). Ivory keeps no key for it (decision 0017): operator
 * staff give the address of a wallet they control, per family, checked as a
 * recipient of that family is (EVM EIP-55 and not zero; Solana on the ed25519
 * curve; Tron base58check). New issuances use the address in force when they
 * are created; existing ones keep theirs.
 */
export async function setMerchantPayoutSetup(
  deps: { readonly db: Db; readonly clock: Clock },
  input: { readonly merchantId: string; readonly change: PayoutSetupChange; readonly actor: OperatorActor },
): Promise<PayoutSetupView> {
  const wallets = Object.entries(input.change.service_wallets ?? {}) as [WalletFamily, string | null | undefined][];
  const changed = wallets.filter((entry): entry is [WalletFamily, string | null] => entry[1] !== undefined);
  if (changed.length === 0 && input.change.tron_enabled === undefined) {
    throw fieldError('invalid_request', 'body', 'must change service_wallets or tron_enabled');
  }
  const parsed = changed.map(([family, address]) => [family, address === null ? null : parseWalletAddress(family, address)] as const);

  return inTransaction(deps.db, async (trx) => {
    const now = deps.clock.now();
    const merchant = await lockMerchantForOperator(trx, input.merchantId);
    for (const [family, address] of parsed) await writeServiceWallet(trx, merchant.id, family, address, now);
    if (input.change.tron_enabled !== undefined) await writeTronEnabled(trx, merchant.id, input.change.tron_enabled);
    const view = await payoutSetupView(trx, merchant.id);
    await insertAuditEntry(trx, {
      actor: input.actor,
      action: 'merchant.payout_setup',
      targetType: 'merchant',
      targetId: merchant.id,
      details: { change: { service_wallets: Object.fromEntries(parsed), ...(input.change.tron_enabled === undefined ? {} : { tron_enabled: input.change.tron_enabled }) }, ...view },
      at: now,
    });
    return view;
  });
}

/** GET /admin/v1/merchants/{id}/payout-setup; an unknown merchant is 404 `not_found`. */
export async function getMerchantPayoutSetup(db: Db, merchantId: string): Promise<PayoutSetupView> {
  return inTransaction(db, async (trx) => {
    await lockMerchantForOperator(trx, merchantId);
    return payoutSetupView(trx, merchantId);
  });
}

async function payoutSetupView(db: Executor, merchantId: string): Promise<PayoutSetupView> {
  const setup: MerchantPayoutSetup = await findMerchantPayoutSetup(db, merchantId);
  return {
    merchant_id: merchantId,
    service_wallets: Object.fromEntries(CHAIN_FAMILIES.map((family) => [family, setup.wallets[family] ?? null])) as Record<WalletFamily, string | null>,
    tron_enabled: setup.tronEnabled,
  };
}

function parseWalletAddress(family: WalletFamily, address: string): string {
  return addressCodec(family).parseRecipient(address, `service_wallets.${family}`);
}
