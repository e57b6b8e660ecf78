import { getAddress, isAddress } from 'viem';
import { fieldError } from '../../platform/errors.js';
import { trimmedExplorerRoot, type AddressCodec, type PaymentRequest } from '../address-codec.js';

const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

/**
 * EVM addresses: 0x and 40 hex digits, shown and stored in EIP-55 form,
 * compared in lower case (a watcher reads logs in lower case).
 */
export const evmAddressCodec: AddressCodec = {
  family: 'evm',
  accountBytes: 20,
  txIdBytes: 32,

  /**
   * Mixed case must carry a valid checksum (a typo in a mixed-case address is
   * caught); all lower case has none to check and is accepted. The zero
   * address burns funds and is refused. SPEC: `invalid_recipient`.
   */
  parseRecipient(raw, field) {
    if (!isAddress(raw, { strict: false })) throw fieldError('invalid_recipient', field, 'must be an EVM address: 0x and 40 hex digits');
    if (!isAddress(raw, { strict: true })) {
      throw fieldError('invalid_recipient', field, `has a wrong EIP-55 checksum (a typo?): mixed case must match ${getAddress(raw)}, or send it all lower case`);
    }
    const address = getAddress(raw);
    if (address === ZERO_ADDRESS) throw fieldError('invalid_recipient', field, 'must not be the zero address, which burns funds');
    return address;
  },

  contractProblem(address) {
    if (!isAddress(address, { strict: false })) return 'must be an EVM address';
    const checksummed = getAddress(address);
    return checksummed === address ? undefined : `must be EIP-55 checksummed: ${checksummed}`;
  },

  normalise: (address) => address.toLowerCase(),
  same: (left, right) => left.toLowerCase() === right.toLowerCase(),
  display: (address) => (isAddress(address, { strict: false }) ? getAddress(address) : address),

  explorerTxUrl: (explorerUrl, txId) => `${trimmedExplorerRoot(explorerUrl)}/tx/${txId}`,
  explorerAddressUrl: (explorerUrl, address) => `${trimmedExplorerRoot(explorerUrl)}/address/${address}`,

  /** EIP-681: a `transfer` call on the token contract; `uint256` is in base units. */
  paymentUri(request: PaymentRequest) {
    const amount = request.amount === null ? '' : `&uint256=${request.amount.toString()}`;
    return `ethereum:${request.token}@${request.chainId}/transfer?address=${request.address}${amount}`;
  },

  spellAddress: (account) => getAddress(`0x${Buffer.from(account).toString('hex')}`),
  spellTxId: (txId) => `0x${Buffer.from(txId).toString('hex')}`,
};
