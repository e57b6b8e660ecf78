import { fileURLToPath } from 'node:url';
import { addressCodec } from '../chains/index.js';
import type { Catalogue, IsLive, ListedNetwork, Network, NetworkFamily, PublicNetwork, Token } from './network.js';
import { readCatalogueFile } from './read-catalogue-file.js';

export const DEFAULT_CATALOGUE_FILE = fileURLToPath(new URL('./networks.default.json', import.meta.url));

/**
 * Reads and validates the network catalogue: `file` (from NETWORKS_FILE, through
 * config) or the bundled default. Icon paths in the file are relative to the
 * file. Throws a one-line Error naming the file, the entry and the field when
 * anything is wrong; start-up should stop on it.
 */
export function loadCatalogue(file?: string): Catalogue {
  const path = file ?? DEFAULT_CATALOGUE_FILE;
  return buildCatalogue(path, readCatalogueFile(path));
}

function tokenKey(family: NetworkFamily, address: string): string {
  return addressCodec(family).normalise(address);
}

function buildCatalogue(file: string, networks: readonly Network[]): Catalogue {
  const byChainId = new Map(networks.map((network) => [network.chainId, network]));
  const tokensByChainId = new Map(
    networks.map((network) => [
      network.chainId,
      new Map(network.tokens.map((token) => [tokenKey(network.family, token.address), token])),
    ]),
  );

  const iconPathOf = (chainId: number, token: Token): string | undefined =>
    token.icon === undefined ? undefined : `/token-icons/${chainId}/${encodeURIComponent(token.address)}/${token.icon.hash}`;

  const recordOf = (network: Network): PublicNetwork => ({
    chain_id: network.chainId,
    name: network.name,
    native_symbol: network.nativeSymbol,
    explorer_url: network.explorerUrl,
    main_factory: network.mainFactory,
    invoice_factory: network.invoiceFactory,
    start_block: network.startBlock,
    tokens: network.tokens.map((token) => {
      const iconUrl = iconPathOf(network.chainId, token);
      return {
        address: token.address,
        symbol: token.symbol,
        decimals: token.decimals,
        ...(token.ready ? { status: 'ready' as const } : {}),
        ...(iconUrl === undefined ? {} : { icon_url: iconUrl }),
      };
    }),
    minimum_payment: network.minimumPayment,
    family: network.family,
  });
  // Built once: the catalogue is frozen at load, and checkouts read a record per option.
  const records = new Map(networks.map((network) => [network.chainId, Object.freeze(recordOf(network))]));

  const publicNetworks: readonly PublicNetwork[] = Object.freeze(
    networks
      .filter((network) => network.enabled && network.tokens.some((token) => token.ready))
      .map((network) => records.get(network.chainId) as PublicNetwork),
  );

  const token = (chainId: number, address: string): Token | undefined => {
    const network = byChainId.get(chainId);
    return network === undefined ? undefined : tokensByChainId.get(chainId)?.get(tokenKey(network.family, address));
  };

  return {
    file,
    networks: () => networks,
    publicNetworks: () => publicNetworks,
    network: (chainId) => byChainId.get(chainId),
    networkRecord: (chainId) => records.get(chainId) ?? bareRecord(chainId),
    token,
    icon(chainId, address, hash) {
      const icon = token(chainId, address)?.icon;
      if (icon === undefined || icon.hash !== hash) return undefined;
      return { bytes: icon.bytes, contentType: icon.contentType };
    },
    iconPath(chainId, address) {
      const found = token(chainId, address);
      return found === undefined ? undefined : iconPathOf(chainId, found);
    },
    feeTerms: (chainId, kind) => byChainId.get(chainId)?.fees[kind],
    sweepTerms: (chainId) => byChainId.get(chainId)?.sweep,
  };
}

/** The record as the API shows it on this deployment: with `live` (decision 0023). */
export function listedNetwork(network: PublicNetwork, isLive: IsLive): ListedNetwork {
  return { ...network, live: isLive(network.chain_id) };
}

/** A chain gone from the catalogue altogether: a bare record (a page then shows the chain id). */
function bareRecord(chainId: number): PublicNetwork {
  return {
    chain_id: chainId,
    name: `Chain ${chainId}`,
    native_symbol: '',
    explorer_url: '',
    main_factory: '',
    invoice_factory: '',
    start_block: 0,
    tokens: [],
    minimum_payment: '0',
    family: 'evm',
  };
}
