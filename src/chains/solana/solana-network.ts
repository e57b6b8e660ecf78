import type { ChainNetwork, ChainToken } from '../chain-network.js';
import type { SolanaAccess } from './solana-access.js';

/** A live Solana network as Ivory runs it: the node, the tuning, the mints and the fee wallet. */
export interface SolanaNetwork {
  readonly chainId: number;
  readonly name: string;
  readonly rpcUrl: string;
  /** Where transfer.confirmed happens (`finalized` unless the operator chose `confirmed`). */
  readonly commitment: 'confirmed' | 'finalized';
  /** The operator's wallet (base58); its token accounts take the fees. Undefined: sweeps fail until it is set. */
  readonly feeWallet: string | undefined;
  readonly pollIntervalMs: number;
  readonly tokens: readonly ChainToken[];
}

export function solanaNetworkOf(network: ChainNetwork, access: SolanaAccess): SolanaNetwork {
  return {
    chainId: network.chainId,
    name: network.name,
    rpcUrl: access.rpcUrl,
    commitment: access.commitment,
    feeWallet: access.feeWallet,
    pollIntervalMs: access.pollIntervalMs,
    tokens: network.tokens,
  };
}
