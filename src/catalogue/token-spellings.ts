import type { Catalogue } from './network.js';

/**
 * Tokens are stored as the catalogue spells them (EVM: its checksummed case),
 * so a list's token filter matches those spellings of what the caller wrote,
 * on the given network or on any, and the text as written (a token since gone
 * from the catalogue still matches in its stored spelling).
 */
export function tokenSpellings(catalogue: Catalogue, token: string, chainId: number | undefined): string[] {
  const networks = chainId === undefined ? catalogue.networks().map((network) => network.chainId) : [chainId];
  const spellings = new Set([token]);
  for (const network of networks) {
    const known = catalogue.token(network, token);
    if (known !== undefined) spellings.add(known.address);
  }
  return [...spellings];
}
