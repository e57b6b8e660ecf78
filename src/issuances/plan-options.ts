import type { Catalogue, FeeTerms, Network, NetworkFamily } from '../catalogue/index.js';
import { familyRules, type ChainAdapters } from '../chains/index.js';
import { feeExceedsAmount, parseBaseUnits, parseDecimalAmount } from '../money/index.js';
import { merchantMayUse, type MerchantPayoutSetup } from '../merchants/index.js';
import type { PayoutTarget } from '../platform/database/schema.js';
import { IvoryError, fieldError, type ErrorCode } from '../platform/errors.js';
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
  /**
   * The merchant's service wallets and Tron switch (decision 0017); absent:
   * no service wallet, Tron on.
   */
  readonly payoutSetup?: MerchantPayoutSetup;
  /**
   * What the chains said against the shop's recipient, by `recipientProblemKey`
   * (`findRecipientProblems`, asked before the transaction); absent: nothing.
   */
  readonly recipientProblems?: ReadonlyMap<string, ErrorCode>;
}

export function recipientProblemKey(chainId: number, token: string): string {
  return `${chainId}:${token}`;
}

const NO_SERVICE_WALLET: MerchantPayoutSetup = { wallets: {}, tronEnabled: true };

export function feeTermsKey(chainId: number, kind: 'invoice' | 'deposit'): string {
  return `${chainId}:${kind}`;
}

/**
 * SPEC "Invoices and deposits" and "Limits", per option, in this order:
 * unsupported_network, unsupported_asset, merchant_network_disabled (Tron off
 * for the merchant), solana_sandbox_unavailable, then for live shops
 * asset_not_ready, the family's payout setup (a `wallet` target without the
 * merchant's service wallet there: wallet_not_ready,
 * solana_bridge_unavailable, tron_bridge_unavailable; an `address` target
 * without a recipient: wallet_not_ready, solana_setup_required,
 * tron_setup_required) and
 * network_not_ready (no chain adapter), what the chain says against the
 * recipient (solana_recipient_token_account_required); then the amount: invalid_amount,
 * invoice_amount_limit, sandbox_amount_limit, amount_below_minimum,
 * fee_exceeds_amount. Input errors carry `details: {field, reason}`; in a
 * group every error names the option in `details: {chain_id, token}` instead
 * (Rule 2) and nothing is created.
 */
export function planOptions(request: IssuanceRequest, deps: PlanDeps): PlannedOption[] {
  const planned = request.options.map((option) => {
    try {
      return planOption(request, option, deps);
    } catch (error) {
      // SPEC's shape wins over {field, reason}: a group's error names the option.
      if (request.grouped && error instanceof IvoryError) throw new IvoryError(error.code, { chain_id: option.chainId, token: option.token });
      throw error;
    }
  });
  const seen = new Map<string, number>();
  planned.forEach((option, index) => {
    const pair = `${option.chainId}:${option.token}`;
    const earlier = seen.get(pair);
    if (earlier !== undefined) throw fieldError('invalid_assets', `assets[${index}]`, `repeats assets[${earlier}] (EVM token addresses compare without regard to letter case)`);
    seen.set(pair, index);
  });
  return planned;
}

function planOption(request: IssuanceRequest, option: RequestedOption, deps: PlanDeps): PlannedOption {
  const { catalogue, adapters, shop } = deps;
  const network = catalogue.network(option.chainId);
  if (network === undefined || !network.enabled) {
    throw fieldError('unsupported_network', 'chain_id', `is not a network of this deployment (${option.chainId}): use a chain_id from GET /networks`);
  }
  const token = catalogue.token(option.chainId, option.token);
  if (token === undefined) throw fieldError('unsupported_asset', 'token', `is not a token of ${network.name} (chain_id ${network.chainId}): use an address from GET /networks`);
  const setup = deps.payoutSetup ?? NO_SERVICE_WALLET;
  const rules = familyRules(network.family);
  if (!merchantMayUse(setup, network.family)) throw new IvoryError('merchant_network_disabled');
  if (shop.sandbox && rules.sandboxRefusal !== undefined) throw new IvoryError(rules.sandboxRefusal);
  const payout = payoutOf(shop, network.family, setup);
  if (!shop.sandbox && !token.ready) throw fieldError('asset_not_ready', 'token', `${token.symbol} on ${network.name} is not ready for live payments (no status "ready" in GET /networks)`);
  if (payout.recipient === null && (!shop.sandbox || rules.recipientRequiredInSandbox)) {
    throw new IvoryError(payout.target === 'wallet' ? rules.serviceWalletMissing : rules.recipientMissing);
  }
  if (adapters.adapterFor(shop.sandbox, network.chainId, network.family) === undefined) throw fieldError('network_not_ready', 'chain_id', notLiveReason(network));
  const recipientProblem = shop.sandbox ? undefined : deps.recipientProblems?.get(recipientProblemKey(network.chainId, token.address));
  if (recipientProblem !== undefined) throw new IvoryError(recipientProblem);

  const kind = request.kind;
  const feeTerms = deps.merchantFeeTerms?.get(feeTermsKey(network.chainId, kind)) ?? network.fees[kind];
  let amount: bigint | null = null;
  if (kind === 'invoice') {
    const text = request.amount ?? '';
    const parsed = request.grouped ? parseDecimalAmount(text, token.decimals) : parseBaseUnits(text);
    if (parsed === undefined) throw fieldError('invalid_amount', 'amount', `has more decimals than ${token.symbol}'s ${token.decimals} on ${network.name}`);
    checkInvoiceAmountLimits(parsed, token.decimals, shop.sandbox);
    if (parsed < token.minimumPayment || parsed === 0n) {
      throw fieldError('amount_below_minimum', 'amount', `must be at least ${network.minimumPayment} ${token.symbol} on ${network.name} (minimum_payment), ${token.minimumPayment} base units`);
    }
    if (feeExceedsAmount(parsed, feeTerms, token.decimals)) throw fieldError('fee_exceeds_amount', 'amount', 'must be larger than the fee it pays (GET /shops/{shop_id}/terms)');
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
    delegate: rules.hasDelegate ? shop.delegate : null,
    payoutTarget: payout.target,
  };
}

/**
 * Why a live issuance on `network` is refused with network_not_ready: this
 * deployment serves no live network without a node and factories (decision
 * 0023). For the developer, and for the operator they will ask.
 */
function notLiveReason(network: Network): string {
  return (
    `This deployment has no node configured for ${network.name} (chain_id ${network.chainId}), so it takes no live payments there: ` +
    `${familyRules(network.family).liveSetup}. ` +
    'GET /networks shows live: true where live invoices are accepted.'
  );
}

/** The shop's payout columns of each family: storage, as the shops table names them. */
const PAYOUT_COLUMNS = {
  evm: { recipient: 'recipient', target: 'payout_target' },
  tron: { recipient: 'tron_recipient', target: 'tron_payout_target' },
  solana: { recipient: 'solana_recipient', target: 'solana_payout_target' },
} as const satisfies Readonly<Record<NetworkFamily, { recipient: keyof ShopSnapshot; target: keyof ShopSnapshot }>>;

/**
 * Where this family's payouts go, copied into the issuance: the shop's
 * recipient, or for a `wallet` target the merchant's service wallet address
 * as it is now (a later change of either reaches new issuances only).
 */
function payoutOf(shop: ShopSnapshot, family: NetworkFamily, setup: MerchantPayoutSetup): { recipient: string | null; target: PayoutTarget } {
  const columns = PAYOUT_COLUMNS[family];
  const chosen = { recipient: shop[columns.recipient], target: shop[columns.target] };
  return chosen.target === 'wallet' ? { recipient: setup.wallets[family] ?? null, target: 'wallet' } : chosen;
}
