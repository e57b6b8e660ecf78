import { addressCodec, type ChainFamily } from '../chains/index.js';
import type { PayoutTarget } from '../platform/database/schema.js';
import { fieldError } from '../platform/errors.js';
import type { ShopRow } from './merchants.repository.js';

/** SPEC leaves the length of names unshown; 100 characters after trimming is ours. */
export const NAME_MAX_LENGTH = 100;
const CONTROL_CHARACTERS = /\p{Cc}/u;

/** A display name: trimmed, 1..100 characters, no control characters (NUL cannot even be stored). */
export function parseName(raw: string, field = 'name'): string {
  const name = raw.trim();
  const length = [...name].length;
  if (length === 0) throw fieldError('invalid_name', field, 'must not be empty or only spaces');
  if (length > NAME_MAX_LENGTH) throw fieldError('invalid_name', field, `must be at most ${NAME_MAX_LENGTH} characters`);
  if (CONTROL_CHARACTERS.test(name)) throw fieldError('invalid_name', field, 'must not contain control characters');
  return name;
}

/**
 * A shop's own `recipient` and `delegate` columns are its EVM payout addresses
 * (SPEC "Shop"); the other families' recipients have columns of their own.
 */
const SHOP_COLUMNS_FAMILY: ChainFamily = 'evm';

/** An EVM payout address (recipient or delegate), as the family's codec parses it: stored in EIP-55 form. */
export function parseEvmPayoutAddress(raw: string, field: string): string {
  return addressCodec(SHOP_COLUMNS_FAMILY).parseRecipient(raw, field);
}

/**
 * SPEC "Shop": where a shop's EVM payouts go. `address` needs a recipient on a
 * live shop (a sandbox shop pays nothing out and may omit it). `wallet` is
 * sent without a recipient and pays into the merchant's service wallet
 * (whether that is set up is payout-setup.ts's question).
 */
export function payoutRecipient(input: { sandbox: boolean; payoutTarget: PayoutTarget; recipient: string | null | undefined }): string | null {
  if (input.payoutTarget === 'wallet') {
    if (input.recipient !== undefined && input.recipient !== null) {
      throw fieldError('invalid_recipient', 'recipient', 'must be omitted with payout_target wallet (payouts go to the service wallet)');
    }
    return null;
  }
  if (input.recipient === undefined || input.recipient === null) {
    if (input.sandbox) return null;
    throw fieldError('invalid_recipient', 'recipient', 'required on a live shop, unless payout_target is wallet');
  }
  return parseEvmPayoutAddress(input.recipient, 'recipient');
}

/** The columns a shop response shows as they are stored (SPEC "Shop": fields beyond id are ours). */
const SHOP_RECORD_COLUMNS = [
  ...['id', 'merchant_id', 'name', 'sandbox'],
  ...['recipient', 'delegate', 'payout_target'],
  ...['solana_payout_target', 'solana_recipient', 'tron_payout_target', 'tron_recipient'],
] as const satisfies readonly (keyof ShopRow)[];

type ShopRecordColumn = (typeof SHOP_RECORD_COLUMNS)[number];

/**
 * The shop record every shop response uses: the row's own columns, its
 * creation time as ISO text, and when it was archived (null while active;
 * decision 0038).
 */
export type ShopRecord = Pick<ShopRow, ShopRecordColumn> & { created_at: string; archived_at: string | null };

export function shopRecord(shop: ShopRow): ShopRecord {
  const shown = Object.fromEntries(SHOP_RECORD_COLUMNS.map((column) => [column, shop[column]])) as Pick<ShopRow, ShopRecordColumn>;
  return { ...shown, created_at: shop.created_at.toISOString(), archived_at: shop.archived_at?.toISOString() ?? null };
}
