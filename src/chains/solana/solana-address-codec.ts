// @noble/curves arrives with viem; ARCHITECTURE names it for exactly this check.
import { ed25519 } from '@noble/curves/ed25519';
import { fieldError } from '../../platform/errors.js';
import { trimmedExplorerRoot, type AddressCodec } from '../address-codec.js';
import { base58, decodeBase58 } from '../base58.js';
import { solanaPayUri } from './solana-pay.js';

const KEY_BYTES = 32;

function keyBytes(address: string): Uint8Array | undefined {
  const bytes = address.length >= 32 && address.length <= 44 ? decodeBase58(address) : undefined;
  return bytes?.length === KEY_BYTES ? bytes : undefined;
}

/**
 * A page under the explorer's root. Solana's explorers name the cluster in
 * the query (`https://explorer.solana.com?cluster=devnet`), so a catalogue
 * root with a query keeps it after the page's path.
 */
function explorerPage(explorerUrl: string, page: string): string {
  const queryAt = explorerUrl.indexOf('?');
  const root = queryAt < 0 ? explorerUrl : explorerUrl.slice(0, queryAt);
  const query = queryAt < 0 ? '' : explorerUrl.slice(queryAt);
  return `${trimmedExplorerRoot(root)}/${page}${query}`;
}

/** Solana addresses and mints: base58 of a 32-byte key, case-significant, compared as they are. */
export const solanaAddressCodec: AddressCodec = {
  family: 'solana',
  accountBytes: KEY_BYTES,
  txIdBytes: 64,

  /**
   * A payout recipient is a key ON the ed25519 curve. Off-curve keys are
   * program-derived addresses, which no private key controls (SPEC: refused).
   * The all-zero key (the System Program) is on the curve but would burn
   * funds; refused too. SPEC: `invalid_solana_address`.
   */
  parseRecipient(raw, field) {
    const bytes = keyBytes(raw);
    if (bytes === undefined) throw fieldError('invalid_solana_address', field, 'must be a Solana public key: base58, 32 to 44 characters, 32 bytes');
    if (bytes.every((byte) => byte === 0)) throw fieldError('invalid_solana_address', field, 'must not be the System Program address, which burns funds');
    try {
      ed25519.ExtendedPoint.fromHex(bytes);
    } catch {
      throw fieldError('invalid_solana_address', field, 'is a program-derived address (off the ed25519 curve), which no private key controls: use a wallet address');
    }
    return raw;
  },

  // A mint may be off the curve: only the shape is checked.
  contractProblem: (address) => (keyBytes(address) === undefined ? 'must be a Solana base58 address (32 bytes, 32-44 characters)' : undefined),

  normalise: (address) => address,
  same: (left, right) => left === right,
  display: (address) => address,

  explorerTxUrl: (explorerUrl, txId) => explorerPage(explorerUrl, `tx/${txId}`),
  explorerAddressUrl: (explorerUrl, address) => explorerPage(explorerUrl, `address/${address}`),

  paymentUri: solanaPayUri,

  spellAddress: (account) => base58.encode(account),
  spellTxId: (txId) => base58.encode(txId),
};
