import type { ChainAccess, ChainFamily, ChainNetwork } from '../chains/index.js';
import type { FeeTerms } from '../money/index.js';

/** The catalogue's model: networks and tokens as loaded, and their public form. */

export type { FeeTerms } from '../money/index.js';
export type { ChainAccess } from '../chains/index.js';

/** The family of a network: the chain side's list (`chains/chain-network.ts`). */
export type NetworkFamily = ChainFamily;
export type FeeKind = 'invoice' | 'deposit';

/** An icon file read at load; `hash` is the lower-case hex SHA-256 of `bytes`. */
export interface TokenIcon {
  readonly bytes: Buffer;
  readonly contentType: string;
  readonly hash: string;
}

export interface Token {
  /** Contract (EVM, Tron) or mint (Solana); EVM in EIP-55 checksummed form. */
  readonly address: string;
  readonly symbol: string;
  readonly decimals: number;
  /** SPEC `status: ready`: usable for live payments. */
  readonly ready: boolean;
  /** The network's `minimum_payment` in this token's base units. */
  readonly minimumPayment: bigint;
  readonly icon: TokenIcon | undefined;
  /**
   * The token's EIP-712 domain (`name`, `version`) when it implements EIP-3009
   * `transferWithAuthorization` (catalogue `eip712`): only such tokens are offered
   * x402 payment (docs/decisions/0035). Undefined otherwise.
   */
  readonly eip712?: Eip712Domain;
}

/** The name and version of a token's EIP-712 domain, exactly as the contract hashes them. */
export interface Eip712Domain {
  readonly name: string;
  readonly version: string;
}

/** Decimal token amount strings, as SPEC "Shop terms" shows them. */
export interface SweepTerms {
  readonly sweepThreshold: string;
  readonly minimumSweep: string;
  readonly maximumSweep: string;
}

export interface Network extends ChainNetwork {
  readonly chainId: number;
  readonly name: string;
  readonly family: NetworkFamily;
  readonly nativeSymbol: string;
  readonly explorerUrl: string;
  /** Empty until Ivory's factory contracts are deployed on the network. */
  readonly mainFactory: string;
  readonly invoiceFactory: string;
  readonly startBlock: number;
  readonly enabled: boolean;
  /** Whole tokens, decimal string (SPEC "Network"); per token in base units on `Token`. */
  readonly minimumPayment: string;
  readonly fees: { readonly invoice: FeeTerms; readonly deposit: FeeTerms };
  readonly sweep: SweepTerms;
  readonly tokens: readonly Token[];
  /**
   * Catalogue `x402_native_price`: what one native coin (ETH, POL…) is worth at most, in whole
   * tokens of the network's stablecoins, as the operator states it. x402 settlement converts the
   * relayer's gas cost with it to cap that cost by the invoice's fee; undefined, the network
   * offers no x402 (docs/decisions/0035).
   */
  readonly x402NativePrice?: string;
  /** Set when the network is live: an RPC URL and both factories. */
  readonly chain: ChainAccess | undefined;
}

/** A token as GET /networks shows it. `icon_url` is relative to `{base_url}`. */
export interface PublicToken {
  readonly address: string;
  readonly symbol: string;
  readonly decimals: number;
  readonly status?: 'ready';
  readonly icon_url?: string;
}

/** An element of GET /networks (SPEC "Network") as the catalogue file gives it. */
export interface PublicNetwork {
  readonly chain_id: number;
  readonly name: string;
  readonly native_symbol: string;
  readonly explorer_url: string;
  readonly main_factory: string;
  readonly invoice_factory: string;
  readonly start_block: number;
  readonly tokens: readonly PublicToken[];
  readonly minimum_payment: string;
  readonly family: NetworkFamily;
}

/**
 * Whether this deployment takes live payments on a network: it is enabled and
 * a chain adapter serves it, which for EVM means a node (`rpc_url`) and both
 * factories in the catalogue file (decision 0023). The composition root
 * decides it; a catalogue file read alone cannot know.
 */
export type IsLive = (chainId: number) => boolean;

/** A network as the API shows it: the catalogue's record and what is true of it on this deployment. */
export interface ListedNetwork extends PublicNetwork {
  /** This deployment accepts live invoices and deposits on the network (decision 0023). */
  readonly live: boolean;
}

export interface Catalogue {
  /** The file the catalogue was read from. */
  readonly file: string;
  /** Every network of the file, enabled or not. */
  networks(): readonly Network[];
  /** SPEC "Network" list: enabled networks with at least one ready token. */
  publicNetworks(): readonly PublicNetwork[];
  network(chainId: number): Network | undefined;
  /**
   * The SPEC "Network" record of any chain, as the public list gives it: a
   * network disabled since (no longer listed) is built the same way, so open
   * checkouts still render; a chain not in the catalogue gets a bare record.
   */
  networkRecord(chainId: number): PublicNetwork;
  /** Address match is case-insensitive on EVM, exact on the base58 families. */
  token(chainId: number, address: string): Token | undefined;
  /** The icon bytes when `hash` is the icon's current hash; otherwise undefined. */
  icon(chainId: number, address: string, hash: string): { bytes: Buffer; contentType: string } | undefined;
  /** `/token-icons/{chain_id}/{token}/{hash}`, relative to `{base_url}`; undefined without an icon. */
  iconPath(chainId: number, address: string): string | undefined;
  feeTerms(chainId: number, kind: FeeKind): FeeTerms | undefined;
  sweepTerms(chainId: number): SweepTerms | undefined;
}
