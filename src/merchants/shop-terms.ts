import type { Catalogue, FeeKind, FeeTerms, NetworkFamily } from '../catalogue/index.js';
import type { MerchantFeeTermsRow } from './merchant-controls.repository.js';

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
 * GET /shops/{id}/terms: the fee and sweep terms for each network the shop
 * can use (those of the public list): the catalogue's, except where operator
 * staff set the merchant's own fee terms (admin PATCH /merchants/{id}/fees),
 * which are what new issuances take.
 */
export function shopTerms(catalogue: Catalogue, merchantFeeTerms: readonly MerchantFeeTermsRow[] = []): NetworkTermsRecord[] {
  return catalogue.publicNetworks().flatMap((listed) => {
    const network = catalogue.network(listed.chain_id);
    if (network === undefined) return [];
    const fees = (kind: FeeKind): FeeTerms => merchantFeeTerms.find((terms) => terms.chainId === network.chainId && terms.kind === kind) ?? network.fees[kind];
    return [
      {
        chain_id: network.chainId,
        name: network.name,
        family: network.family,
        invoice: feeTermsRecord(fees('invoice')),
        deposit: feeTermsRecord(fees('deposit')),
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
