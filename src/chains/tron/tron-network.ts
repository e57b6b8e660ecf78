import type { Address } from 'viem';
import { parseDecimalAmount } from '../../money/index.js';
import type { ChainNetwork } from '../chain-network.js';
import type { EvmNetwork } from '../evm/index.js';
import type { TronAccess } from './tron-access.js';
import type { TronApiEndpoint } from './tron-api.js';
import { tvmAddress } from './tron-evm-address.js';

/**
 * A live Tron network as Ivory runs it: the node, the tuning, and the
 * network seen from the TVM (`tvm`: factories and tokens as 0x hex), which
 * is what the contracts, the ABI encoding and the node's `/jsonrpc` logs speak.
 */
export interface TronNetwork {
  readonly chainId: number;
  readonly name: string;
  readonly api: TronApiEndpoint;
  /** Blocks below the solidified head before transfer.confirmed (0: at solidification). */
  readonly confirmations: number;
  /** The most TRX (sun) one sweep may burn. */
  readonly feeLimitSun: bigint;
  readonly pollIntervalMs: number;
  /** The catalogue's fee wallet (`T…`); undefined: the factory's. */
  readonly configuredFeeWallet: string | undefined;
  /** The watcher's and the forwarders' view, in TVM hex (no fee wallet: resolved at run time). */
  readonly tvm: Omit<EvmNetwork, 'feeWallet'>;
}

export function tronNetworkOf(network: ChainNetwork, access: TronAccess): TronNetwork {
  return {
    chainId: network.chainId,
    name: network.name,
    api: { url: access.apiUrl, apiKey: access.apiKey },
    confirmations: access.confirmations,
    feeLimitSun: BigInt(access.feeLimitSun),
    pollIntervalMs: access.pollIntervalMs,
    configuredFeeWallet: access.feeWallet,
    tvm: {
      chainId: network.chainId,
      // The node's EVM JSON-RPC; the watcher adds the API key header itself.
      rpcUrl: `${access.apiUrl.replace(/\/+$/, '')}/jsonrpc`,
      confirmations: access.confirmations,
      mainFactory: tvmAddress(network.mainFactory),
      invoiceFactory: tvmAddress(network.invoiceFactory),
      startBlock: BigInt(network.startBlock),
      tokens: network.tokens.map((token) => ({
        address: tvmAddress(token.address) as Address,
        symbol: token.symbol,
        decimals: token.decimals,
        minimumSweep: parseDecimalAmount(network.sweep.minimumSweep, token.decimals) ?? 0n,
      })),
      pollIntervalMs: access.pollIntervalMs,
      maxBlockRange: access.maxBlockRange,
      useFinalizedTag: false,
    },
  };
}
