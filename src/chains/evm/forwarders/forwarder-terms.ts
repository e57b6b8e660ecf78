import { getAddress, isAddress, zeroAddress, type Address } from 'viem';
import type { AddressRequest } from '../../chain-adapter.js';
import { issuanceTermsId, predictForwarderAddress, type ForwarderTerms } from '../contracts/index.js';
import type { EvmNetwork } from '../evm-network.js';

/** A live issuance's forwarder: where it is, which factory sweeps it, and what its salt commits. */
export interface Forwarder {
  readonly issuanceId: string;
  readonly chainId: number;
  readonly kind: 'invoice' | 'deposit';
  readonly factory: Address;
  readonly address: Address;
  readonly terms: ForwarderTerms;
}

/** Why an allocation request cannot become a forwarder: a bug upstream, not a chain problem. */
export class ForwarderTermsError extends Error {}

/** What a forwarder's terms and address are computed from. */
export type ForwarderNetwork = Pick<EvmNetwork, 'chainId' | 'feeWallet' | 'mainFactory' | 'invoiceFactory' | 'tokens'>;

/** Where `factory` deploys the forwarder of `terms`: the EVM's CREATE2 rule, or the TVM's (Tron). */
export type PredictForwarder = (factory: Address, terms: ForwarderTerms) => Address;

/**
 * The forwarder of an issuance, from the request and the network: pure, no
 * RPC. Fee bounds arrive in 18-decimal units and are committed in token base
 * units, rounded down (LEDGER "Fees": in the merchant's favour). The request's
 * addresses are EVM addresses (Tron converts its own to their TVM form first).
 */
export function forwarderFor(network: ForwarderNetwork, request: AddressRequest, predict: PredictForwarder = predictForwarderAddress): Forwarder {
  const { recipient, tokenDecimals, feeBps, feeMinimum, feeMaximum } = request;
  if (recipient === undefined || tokenDecimals === undefined || feeBps === undefined || feeMinimum === undefined || feeMaximum === undefined) {
    throw new ForwarderTermsError(`issuance ${request.issuanceId}: the allocation request lacks the forwarder terms`);
  }
  if (request.kind === 'invoice' && (request.amount === undefined || request.amount === null || request.amount <= 0n)) {
    throw new ForwarderTermsError(`invoice ${request.issuanceId}: a forwarder needs the amount`);
  }
  if (request.amount !== undefined && request.amount !== null && request.amount < 0n) throw new ForwarderTermsError(`negative amount for ${request.issuanceId}`);
  if (tokenDecimals < 0 || tokenDecimals > 18) throw new ForwarderTermsError(`token decimals ${tokenDecimals} out of range`);
  const scale = 10n ** BigInt(18 - tokenDecimals);
  const terms: ForwarderTerms = {
    id: issuanceTermsId(request.issuanceId),
    token: requireAddress(request.token, 'token'),
    recipient: requireAddress(recipient, 'recipient'),
    feeWallet: getAddress(network.feeWallet),
    delegate: request.delegate === undefined || request.delegate === null ? zeroAddress : requireAddress(request.delegate, 'delegate'),
    // Invoices: the amount; deposits: the minimum sweep (docs/decisions/0007).
    amount: request.kind === 'invoice' ? (request.amount ?? 0n) : (request.amount ?? minimumSweepOf(network, request.token)),
    feeMin: feeMinimum / scale,
    feeMax: feeMaximum / scale,
    feeBps,
  };
  const factory = getAddress(request.kind === 'invoice' ? network.invoiceFactory : network.mainFactory);
  return {
    issuanceId: request.issuanceId,
    chainId: network.chainId,
    kind: request.kind,
    factory,
    address: predict(factory, terms),
    terms,
  };
}

function minimumSweepOf(network: ForwarderNetwork, token: string): bigint {
  const found = network.tokens.find((candidate) => candidate.address.toLowerCase() === token.toLowerCase());
  if (found === undefined) throw new ForwarderTermsError(`token ${token} is not in the catalogue of chain ${network.chainId}`);
  return found.minimumSweep;
}

function requireAddress(value: string, field: string): Address {
  if (!isAddress(value, { strict: false })) throw new ForwarderTermsError(`${field} is not an EVM address: ${value}`);
  return getAddress(value);
}
