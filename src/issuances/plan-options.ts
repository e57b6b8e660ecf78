import type { Catalogue, FeeTerms, NetworkFamily } from '../catalogue/index.js';
import type { ChainAdapters } from '../chains/index.js';
import { feeExceedsAmount, parseBaseUnits, parseDecimalAmount } from '../money/index.js';
import type { PayoutTarget } from '../platform/database/schema.js';
import { IvoryError, type ErrorCode } from '../platform/errors.js';
import type { IssuanceRequest, RequestedOption } from './issuance-request.js';
import { checkInvoiceAmountLimits } from '../limits/index.js';

/** The shop fields an issuance copies at creation (SPEC "Shop": later changes do not reach it). */
export interface ShopSnapshot {
  readonly sandbox: boolean;
  readonly recipient: string | null;
  readonly delegate: string | null;
  readonly payout_target: PayoutTarget;
  readonly solana_recipient: string | null;
  readonly tron_recipient: string | null;
  readonly solana_payout_target: PayoutTarget;
  readonly tron_payout_target: PayoutTarget;
}

/** One option, checked against the catalogue and the shop, ready to be stored. */
export interface PlannedOption {
  readonly chainId: number;
  readonly family: NetworkFamily;
  /** The catalogue's spelling of the token address. */
  readonly token: string;
  readonly tokenDecimals: number;
  readonly amount: bigint | null;
  readonly feeTerms: FeeTerms;
  readonly sweepThreshold: bigint | null;
  readonly recipient: string | null;
  readonly delegate: string | null;
  readonly payoutTarget: PayoutTarget;
}

export interface PlanDeps {
  readonly catalogue: Catalogue;
  readonly adapters: ChainAdapters;
  readonly shop: ShopSnapshot;
  /**
   * The merchant's own fee terms set by operator staff, by `feeTermsKey`; a
   * network and kind absent here use the catalogue's.
   */
  readonly merchantFeeTerms?: ReadonlyMap<string, FeeTerms>;
}

export function feeTermsKey(chainId: number, kind: 'invoice' | 'deposit'): string {
  return `${chainId}:${kind}`;
}

/**
 * SPEC "Invoices and deposits" and "Limits", per option, in this order:
 * unsupported_network, unsupported_asset, solana_sandbox_unavailable, then
 * for live shops asset_not_ready, the family's payout setup
 * (wallet_not_ready, solana_setup_required, tron_setup_required) and
 * network_not_ready (no chain adapter); then the amount: invalid_amount,
 * invoice_amount_limit, sandbox_amount_limit, amount_below_minimum,
 * fee_exceeds_amount. In a group the error names the option in
 * `details: {chain_id, token}` (Rule 2) and nothing is created.
 */
export function planOptions(request: IssuanceRequest, deps: PlanDeps): PlannedOption[] {
  const planned = request.options.map((option) => {
    try {
      return planOption(request, option, deps);
    } catch (error) {
      if (request.grouped && error instanceof IvoryError && error.details === undefined) {
        throw new IvoryError(error.code, { chain_id: option.chainId, token: option.token });
      }
      throw error;
    }
  });
  const pairs = new Set(planned.map((option) => `${option.chainId}:${option.token}`));
  if (pairs.size !== planned.length) throw new IvoryError('invalid_assets');
  return planned;
}

function planOption(request: IssuanceRequest, option: RequestedOption, deps: PlanDeps): PlannedOption {
  const { catalogue, adapters, shop } = deps;
  const network = catalogue.network(option.chainId);
  if (network === undefined || !network.enabled) throw new IvoryError('unsupported_network');
  const token = catalogue.token(option.chainId, option.token);
  if (token === undefined) throw new IvoryError('unsupported_asset');
  if (shop.sandbox && network.family === 'solana') throw new IvoryError('solana_sandbox_unavailable');
  const payout = payoutOf(shop, network.family);
  if (!shop.sandbox) {
    if (!token.ready) throw new IvoryError('asset_not_ready');
    if (payout.target === 'wallet') throw new IvoryError('wallet_not_ready');
    if (payout.recipient === null) throw new IvoryError(SETUP_REQUIRED[network.family]);
  }
  if (adapters.adapterFor(shop.sandbox, network.chainId, network.family) === undefined) throw new IvoryError('network_not_ready');

  const kind = request.kind;
  const feeTerms = deps.merchantFeeTerms?.get(feeTermsKey(network.chainId, kind)) ?? network.fees[kind];
  let amount: bigint | null = null;
  if (kind === 'invoice') {
    const text = request.amount ?? '';
    const parsed = request.grouped ? parseDecimalAmount(text, token.decimals) : parseBaseUnits(text);
    if (parsed === undefined) throw new IvoryError('invalid_amount');
    checkInvoiceAmountLimits(parsed, token.decimals, shop.sandbox);
    if (parsed < token.minimumPayment || parsed === 0n) throw new IvoryError('amount_below_minimum');
    if (feeExceedsAmount(parsed, feeTerms, token.decimals)) throw new IvoryError('fee_exceeds_amount');
    amount = parsed;
  }
  const sweepThreshold = kind === 'deposit' ? (parseDecimalAmount(network.sweep.sweepThreshold, token.decimals) ?? null) : null;
  return {
    chainId: network.chainId,
    family: network.family,
    token: token.address,
    tokenDecimals: token.decimals,
    amount,
    feeTerms,
    sweepThreshold,
    recipient: payout.recipient,
    delegate: network.family === 'evm' ? shop.delegate : null,
    payoutTarget: payout.target,
  };
}

const SETUP_REQUIRED: Readonly<Record<NetworkFamily, ErrorCode>> = {
  evm: 'wallet_not_ready',
  solana: 'solana_setup_required',
  tron: 'tron_setup_required',
};

function payoutOf(shop: ShopSnapshot, family: NetworkFamily): { recipient: string | null; target: PayoutTarget } {
  if (family === 'solana') return { recipient: shop.solana_recipient, target: shop.solana_payout_target };
  if (family === 'tron') return { recipient: shop.tron_recipient, target: shop.tron_payout_target };
  return { recipient: shop.recipient, target: shop.payout_target };
}
