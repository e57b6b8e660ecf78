import type { components } from '../client/index.js';
import { answerOf } from './api-answer.js';
import { ToolFailure, type ToolContext } from './tool.js';

type Network = components['schemas']['Network'];

/** A token on a network, as the tools name it (symbol and network name) and as the API does (chain id and address). */
export interface ResolvedAsset {
  readonly network: string;
  readonly chainId: number;
  readonly symbol: string;
  readonly token: string;
  readonly decimals: number;
  readonly minimumPayment: string;
}

export async function listNetworks(context: ToolContext): Promise<Network[]> {
  return answerOf(await context.api.GET('/networks'));
}

/**
 * The network by name (any letter case; a chain id also works) and its ready
 * token by symbol, from `/networks`: addresses and decimals are read, never
 * hard-coded (SPEC "Network").
 */
export function resolveAsset(networks: readonly Network[], networkName: string, symbol: string): ResolvedAsset {
  const wanted = networkName.trim().toLowerCase();
  const network = networks.find((candidate) => candidate.name.toLowerCase() === wanted || String(candidate.chain_id) === wanted);
  if (network === undefined) {
    throw new ToolFailure('unsupported_network', `No network is named "${networkName}". The networks are: ${networks.map((candidate) => candidate.name).join(', ')}.`);
  }
  const ready = network.tokens.filter((candidate) => candidate.status === 'ready');
  const token = ready.find((candidate) => candidate.symbol.toLowerCase() === symbol.trim().toLowerCase());
  if (token === undefined) {
    throw new ToolFailure('unsupported_asset', `${network.name} offers no ready token "${symbol}". It offers: ${ready.map((candidate) => candidate.symbol).join(', ') || 'none'}.`);
  }
  return {
    network: network.name,
    chainId: network.chain_id,
    symbol: token.symbol,
    token: token.address,
    decimals: token.decimals,
    minimumPayment: network.minimum_payment,
  };
}

/** The symbol of a token address on a chain, for answers; the address itself when the catalogue no longer lists it. */
export function symbolOf(networks: readonly Network[], chainId: number, token: string): string {
  const network = networks.find((candidate) => candidate.chain_id === chainId);
  return network?.tokens.find((candidate) => candidate.address.toLowerCase() === token.toLowerCase())?.symbol ?? token;
}

export function networkNameOf(networks: readonly Network[], chainId: number): string {
  return networks.find((candidate) => candidate.chain_id === chainId)?.name ?? String(chainId);
}
