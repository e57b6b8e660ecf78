import { createHash } from 'node:crypto';
import { base58check } from '@scure/base';
import { fieldError } from '../../platform/errors.js';
import { trimmedExplorerRoot, type AddressCodec } from '../address-codec.js';
import { decodeBase58 } from '../base58.js';

const ADDRESS_LENGTH = 34;
const ADDRESS_BYTES = 25;
const PAYLOAD_BYTES = 21;
/** TVM addresses are the EVM's 20 bytes behind this prefix (ARCHITECTURE "Chains"). */
const ADDRESS_PREFIX = 0x41;

const sha256 = (bytes: Uint8Array): Uint8Array => createHash('sha256').update(bytes).digest();
const tronBase58check = base58check(sha256);

type TronAddressShape = 'valid' | 'malformed' | 'checksum';

/** Base58check of 21 bytes starting 0x41 plus 4 bytes of double SHA-256: a wrong checksum is told apart (a typo). */
function shapeOf(address: string): { shape: TronAddressShape; payload?: Uint8Array } {
  const bytes = address.length === ADDRESS_LENGTH ? decodeBase58(address) : undefined;
  if (bytes?.length !== ADDRESS_BYTES || bytes[0] !== ADDRESS_PREFIX) return { shape: 'malformed' };
  const payload = bytes.subarray(0, PAYLOAD_BYTES);
  const checksum = sha256(sha256(payload)).subarray(0, 4);
  if (!Buffer.from(checksum).equals(bytes.subarray(PAYLOAD_BYTES))) return { shape: 'checksum' };
  return { shape: 'valid', payload };
}

/** Tron addresses: base58check `T…`, case-significant, compared as they are. */
export const tronAddressCodec: AddressCodec = {
  family: 'tron',
  accountBytes: 20,
  txIdBytes: 32,

  /**
   * A malformed string is `invalid_tron_address`; a well-formed one whose
   * checksum fails (a typo) is `invalid_tron_checksum`. The all-zero account
   * burns funds and is refused.
   */
  parseRecipient(raw, field) {
    const { shape, payload } = shapeOf(raw);
    if (shape === 'malformed') throw fieldError('invalid_tron_address', field, 'must be a Tron address: base58check, 34 characters starting with T');
    if (shape === 'checksum') throw fieldError('invalid_tron_checksum', field, 'has a wrong checksum (a typo?): copy the address again');
    if (payload?.subarray(1).every((byte) => byte === 0)) throw fieldError('invalid_tron_address', field, 'must not be the zero account, which burns funds');
    return raw;
  },

  contractProblem: (address) =>
    shapeOf(address).shape === 'valid' ? undefined : 'must be a Tron base58check address (34 characters, starting with T)',

  normalise: (address) => address,
  same: (left, right) => left === right,
  display: (address) => address,

  // Tronscan routes in the fragment.
  explorerTxUrl: (explorerUrl, txId) => `${trimmedExplorerRoot(explorerUrl)}/#/transaction/${txId}`,
  explorerAddressUrl: (explorerUrl, address) => `${trimmedExplorerRoot(explorerUrl)}/#/address/${address}`,

  /** Tron wallets share no URI scheme: the bare address, which every one of them reads. */
  paymentUri: (request) => request.address,

  spellAddress: (account) => tronBase58check.encode(Uint8Array.from([ADDRESS_PREFIX, ...account])),
  // Tron transaction ids are bare hex.
  spellTxId: (txId) => Buffer.from(txId).toString('hex'),
};
