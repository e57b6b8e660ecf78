import type { ErrorCode } from '../platform/errors.js';
import type { ChainFamily } from './chain-network.js';

/**
 * What differs between families in generic code's decisions: each is a
 * question a caller used to answer with `if (family === …)`. Pure data, so
 * that adding a family means filling one of these, not finding the `if`s.
 */
export interface FamilyRules {
  readonly family: ChainFamily;
  /** How people call the family in messages ("the shop's Tron recipient"). */
  readonly displayName: string;
  /** A shop's delegate may sweep without Ivory: the forwarder commits it (EVM only). */
  readonly hasDelegate: boolean;
  /** The payment URI opens a wallet app; Tron's is a bare address that only a scan reads. */
  readonly paymentUriOpensWallet: boolean;
  /** The wallet request carries the issuance's own reference key, which the watcher also reads (Solana Pay; decision 0039). */
  readonly paymentReference: boolean;
  /** The checkout page may ask a browser wallet (EIP-1193) to send the transfer. */
  readonly browserWalletPayment: boolean;
  /** Sign-in with a wallet of the family (SIWE: EVM only). */
  readonly walletSignIn: boolean;
  /** Sandbox shops may not issue on the family: the code they are refused with; undefined when they may. */
  readonly sandboxRefusal: ErrorCode | undefined;
  /** The operator must switch the family on per merchant (`merchant_network_disabled` until then; Tron). */
  readonly needsMerchantOptIn: boolean;
  /** The merchant's network list says whether a service wallet bridges payouts (`wallet_bridge`; Solana). */
  readonly listsWalletBridge: boolean;
  /** A live issuance whose shop has no recipient on the family. */
  readonly recipientMissing: ErrorCode;
  /**
   * Sandbox shops need the recipient too (Tron: issue 23 — the sandbox rehearses the
   * immutable recipient a live shop will need); EVM sandbox shops may omit it (SPEC "Shop").
   */
  readonly recipientRequiredInSandbox: boolean;
  /** A live issuance paying into the merchant's service wallet when none is set for the family. */
  readonly serviceWalletMissing: ErrorCode;
  /** A request whose recipient address does not even have the family's shape (the schema's field error). */
  readonly malformedRecipient: ErrorCode;
  /** A recipient that is one of the service's own addresses (a token, a fee wallet, a service wallet). */
  readonly ownAddressRecipient: ErrorCode;
  /** What an operator adds to the catalogue entry for live payments on a network of the family (network_not_ready's advice). */
  readonly liveSetup: string;
}
