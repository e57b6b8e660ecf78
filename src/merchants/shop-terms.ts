import type { Catalogue, FeeTerms, NetworkFamily } from '../catalogue/index.js';

export interface FeeTermsRecord {
  bps: number;
  /** Integer string in 18-decimal units, whatever the token's decimals (SPEC "Shop terms"). */
  minimum: string;
  maximum: string;
}

export interface NetworkTermsRecord {
  chain_id: number;
  name: string;
  family: NetworkFamily;
  invoice: FeeTermsRecord;
  deposit: FeeTermsRecord;
  /** Decimal token amounts. */
  sweep_threshold: string;
  minimum_sweep: string;
  maximum_sweep: string;
}

/**
 * GET /shops/{id}/terms: the catalogue's fee and sweep terms for each network
 * the shop can use (those of the public list). Terms are per network, the same
 * for every shop, until operators get per-merchant terms.
 */
export function shopTerms(catalogue: Catalogue): NetworkTermsRecord[] {
  return catalogue.publicNetworks().flatMap((listed) => {
    const network = catalogue.network(listed.chain_id);
    if (network === undefined) return [];
    return [
      {
        chain_id: network.chainId,
        name: network.name,
        family: network.family,
        invoice: feeTermsRecord(network.fees.invoice),
        deposit: feeTermsRecord(network.fees.deposit),
        sweep_threshold: network.sweep.sweepThreshold,
        minimum_sweep: network.sweep.minimumSweep,
        maximum_sweep: network.sweep.maximumSweep,
      },
    ];
  });
}

function feeTermsRecord(terms: FeeTerms): FeeTermsRecord {
  return { bps: terms.bps, minimum: terms.minimum.toString(), maximum: terms.maximum.toString() };
}
