/**
 * What the chain side knows of a network: the families and the part of a
 * catalogue entry a driver runs on. Declared here, not in `catalogue/`, so
 * that the catalogue may ask the family drivers (address codecs, access
 * sections) without the two modules importing each other: the catalogue's
 * `Network` is a `ChainNetwork` with the public terms added.
 */

import type { EvmAccess } from './evm/evm-access.js';
import type { SolanaAccess } from './solana/solana-access.js';
import type { TronAccess } from './tron/tron-access.js';

export type { EvmAccess, SolanaAccess, TronAccess };

/** The blockchain families SPEC names. */
export type ChainFamily = 'evm' | 'tron' | 'solana';

/**
 * How Ivory reaches a network, by family (catalogue file only, never in an
 * API answer): each family's parser (`evm/evm-access.ts`,
 * `tron/tron-access.ts`, `solana/solana-access.ts`) reads and checks it.
 * `family` always equals the network's.
 */
export type ChainAccess = EvmAccess | TronAccess | SolanaAccess;

export interface ChainToken {
  /** Contract (EVM, Tron) or mint (Solana), in the family's display form. */
  readonly address: string;
  readonly symbol: string;
  readonly decimals: number;
}

export interface ChainNetwork {
  readonly chainId: number;
  readonly name: string;
  readonly family: ChainFamily;
  readonly enabled: boolean;
  /** Empty until Ivory's factory contracts are deployed on the network. */
  readonly mainFactory: string;
  readonly invoiceFactory: string;
  readonly startBlock: number;
  readonly tokens: readonly ChainToken[];
  /** Decimal token amounts (SPEC "Shop terms"); a driver needs the minimum sweep. */
  readonly sweep: { readonly minimumSweep: string };
  /** Set when the catalogue gives a way to reach the network; live when its family has a running driver too. */
  readonly chain: ChainAccess | undefined;
}
