import type { PaymentRequirements, ResourceInfo } from '@x402/core/types';
import type { Catalogue, IsLive } from '../catalogue/index.js';
import type { EvmAccess } from '../chains/index.js';
import type { Clock } from '../platform/clock.js';
import type { Executor } from '../platform/database/database.js';
import { amountOwed, paymentRequirements, unavailability, type X402Refusal } from './x402-offer.js';
import { findInvoiceByPublicId, inFlightValue, isGroupPublicId, type X402Invoice } from './x402.repository.js';

export interface ReadOfferDeps {
  readonly clock: Clock;
  readonly catalogue: Catalogue;
  readonly isLive: IsLive;
  /** `{pay_url}`: the resource is `{payment_url}/x402`. */
  readonly payUrl: string;
}

export type X402Offer =
  | {
      readonly kind: 'offer';
      readonly resource: ResourceInfo;
      readonly invoice: X402Invoice;
      readonly requirements: PaymentRequirements;
      readonly owed: bigint;
      readonly access: EvmAccess;
      /** Catalogue `x402_native_price`. */
      readonly nativePrice: string;
    }
  | { readonly kind: 'refused'; readonly resource: ResourceInfo; readonly refusal: X402Refusal };

/** Public ids are 16 base64url characters (issuances `newPublicId`); anything else is not looked up. */
const PUBLIC_ID = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * `GET {payment_url}/x402` without a payment: the invoice's x402 offer (what a payer must
 * authorise now), or why there is none. Reads only; never throws for an expected outcome.
 */
export async function readX402Offer(executor: Executor, deps: ReadOfferDeps, publicId: string): Promise<X402Offer> {
  const resource: ResourceInfo = {
    url: `${deps.payUrl}/${publicId}/x402`,
    description: `Invoice ${publicId}`,
    mimeType: 'application/json',
  };
  const refused = (refusal: X402Refusal): X402Offer => ({ kind: 'refused', resource, refusal });
  if (!PUBLIC_ID.test(publicId)) return refused({ code: 'not_found' });
  const invoice = await findInvoiceByPublicId(executor, publicId);
  if (invoice === undefined) {
    return refused((await isGroupPublicId(executor, publicId)) ? { code: 'x402_unavailable', reason: 'group' } : { code: 'not_found' });
  }
  const network = deps.catalogue.network(invoice.chainId);
  const access = network?.chain;
  const evmAccess = access?.family === 'evm' ? access : undefined;
  const eip712 = deps.catalogue.token(invoice.chainId, invoice.token)?.eip712;
  const nativePrice = network?.x402NativePrice;
  const unavailable = unavailability(invoice, { liveEvm: evmAccess !== undefined && deps.isLive(invoice.chainId), nativePrice, eip712 });
  if (unavailable !== undefined) return refused(unavailable);
  if (evmAccess === undefined || eip712 === undefined || nativePrice === undefined) return refused({ code: 'x402_unavailable', reason: 'network' });

  const owed = amountOwed(invoice, await inFlightValue(executor, invoice.id), deps.clock.now());
  if (typeof owed !== 'bigint') return refused(owed);
  return { kind: 'offer', resource, invoice, requirements: paymentRequirements(invoice, eip712, owed), owed, access: evmAccess, nativePrice };
}
