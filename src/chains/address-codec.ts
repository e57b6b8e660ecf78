import type { ChainFamily } from './chain-network.js';

/**
 * What a wallet is asked to pay: `token` and `address` in the family's
 * display form; `amount` in base units, null when the payer chooses it
 * (deposits).
 */
export interface PaymentRequest {
  readonly chainId: number;
  readonly token: string;
  readonly tokenDecimals: number;
  readonly address: string;
  readonly amount: bigint | null;
  /**
   * What a wallet shows and echoes beside the transfer, where the family's
   * scheme carries it (Solana Pay: `reference`, `label`, `message`); other
   * families ignore them. `reference` is a base58 public key that the wallet
   * adds to the transfer as a read-only account, so the payment can be found by it.
   */
  readonly reference?: string | undefined;
  readonly label?: string | undefined;
  readonly message?: string | undefined;
}

/**
 * Everything about a family's addresses that generic code needs, answered by
 * the family (ARCHITECTURE "Chains"): code outside `chains/` asks the codec and
 * never compares, lower-cases or links an address by itself. Pure: no I/O.
 */
export interface AddressCodec {
  readonly family: ChainFamily;
  /**
   * A payout address a person typed (a shop recipient, a service wallet),
   * in the form to store; throws `fieldError` with the family's SPEC code
   * naming `field` when it is malformed, mistyped (checksum) or burns funds.
   */
  parseRecipient(raw: string, field: string): string;
  /**
   * Why a catalogue contract, mint or factory address is not in the family's
   * exact form (EVM: EIP-55 strict), or undefined when it is. The catalogue is
   * written by the operator, so a problem is a start-up failure, not a code.
   */
  contractProblem(address: string): string | undefined;
  /** The one comparison key of an address (EVM: lower case; base58 as it is): map keys, SQL matches. */
  normalise(address: string): string;
  same(left: string, right: string): boolean;
  /** The form shown to people (EVM: EIP-55); an address that is not one comes back unchanged. */
  display(address: string): string;
  /** A transaction's page on an explorer whose root is `explorerUrl`. */
  explorerTxUrl(explorerUrl: string, txId: string): string;
  explorerAddressUrl(explorerUrl: string, address: string): string;
  /** What a phone wallet scans or opens: EIP-681 on EVM, Solana Pay, the bare address on Tron. */
  paymentUri(request: PaymentRequest): string;
  /** Bytes of an account (EVM and Tron 20, Solana 32) and of a transaction id (32; Solana's signature 64). */
  readonly accountBytes: number;
  readonly txIdBytes: number;
  /** The family's spelling of an account of `accountBytes` bytes (sandbox addresses). */
  spellAddress(account: Uint8Array): string;
  /** The family's spelling of a transaction id of `txIdBytes` bytes (sandbox transfers). */
  spellTxId(txId: Uint8Array): string;
}

export function trimmedExplorerRoot(explorerUrl: string): string {
  return explorerUrl.replace(/\/+$/, '');
}
