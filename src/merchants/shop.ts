import { getAddress, isAddress } from 'viem';
import type { PayoutTarget } from '../platform/database/schema.js';
import { IvoryError } from '../platform/errors.js';
import type { ShopRow } from './merchants.repository.js';

/** SPEC leaves the length of names unshown; 100 characters after trimming is ours. */
export const NAME_MAX_LENGTH = 100;
const CONTROL_CHARACTERS = /\p{Cc}/u;
const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

/** A display name: trimmed, 1..100 characters, no control characters (NUL cannot even be stored). */
export function parseName(raw: string): string {
  const name = raw.trim();
  const length = [...name].length;
  if (length === 0 || length > NAME_MAX_LENGTH || CONTROL_CHARACTERS.test(name)) throw new IvoryError('invalid_name');
  return name;
}

/**
 * An EVM payout address (recipient or delegate), stored in EIP-55 form.
 * Mixed case must carry a valid checksum (a typo in a mixed-case address is
 * caught); all lower case has none to check and is accepted. The zero address
 * burns funds and is refused.
 */
export function parseEvmPayoutAddress(raw: string): string {
  if (!isAddress(raw, { strict: true })) throw new IvoryError('invalid_recipient');
  const address = getAddress(raw);
  if (address === ZERO_ADDRESS) throw new IvoryError('invalid_recipient');
  return address;
}

/**
 * SPEC "Shop": where a shop's EVM payouts go. `address` needs a recipient on a
 * live shop (a sandbox shop pays nothing out and may omit it). `wallet` is
 * sent without a recipient and pays into the merchant's service wallet
 * (whether that is set up is payout-setup.ts's question).
 */
export function payoutRecipient(input: { sandbox: boolean; payoutTarget: PayoutTarget; recipient: string | null | undefined }): string | null {
  if (input.payoutTarget === 'wallet') {
    if (input.recipient !== undefined && input.recipient !== null) throw new IvoryError('invalid_recipient');
    return null;
  }
  if (input.recipient === undefined || input.recipient === null) {
    if (input.sandbox) return null;
    throw new IvoryError('invalid_recipient');
  }
  return parseEvmPayoutAddress(input.recipient);
}

/** The columns a shop response shows as they are stored (SPEC "Shop": fields beyond id are ours). */
const SHOP_RECORD_COLUMNS = [
  ...['id', 'merchant_id', 'name', 'sandbox'],
  ...['recipient', 'delegate', 'payout_target'],
  ...['solana_payout_target', 'solana_recipient', 'tron_payout_target', 'tron_recipient'],
] as const satisfies readonly (keyof ShopRow)[];

type ShopRecordColumn = (typeof SHOP_RECORD_COLUMNS)[number];

/** The shop record every shop response uses: the row's own columns, and its creation time as ISO text. */
export type ShopRecord = Pick<ShopRow, ShopRecordColumn> & { created_at: string };

export function shopRecord(shop: ShopRow): ShopRecord {
  const shown = Object.fromEntries(SHOP_RECORD_COLUMNS.map((column) => [column, shop[column]])) as Pick<ShopRow, ShopRecordColumn>;
  return { ...shown, created_at: shop.created_at.toISOString() };
}
