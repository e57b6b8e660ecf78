import { listedNetwork, type Catalogue, type IsLive } from '../catalogue/index.js';
import type { Executor } from '../platform/database/database.js';
import { IvoryError } from '../platform/errors.js';
import {
  brandingOf,
  checkoutGroupView,
  checkoutOption,
  checkoutView,
  type Checkout,
  type CheckoutGroup,
  type CheckoutUrls,
} from './checkout.js';
import { findGroupForCheckout, findIssuanceForCheckout } from './checkout.repository.js';

/** A checkout as found: the public view, plus what only the hosted page needs. */
export type FoundCheckout =
  | {
      readonly type: 'single';
      readonly view: Checkout;
      /** The issuance's id (page only): the hosted page looks up what its family's wallet request carries by it. */
      readonly issuanceId: string;
      readonly paidElsewhere: boolean;
      /** When the invoice became funded: the receipt's time (page only, not in the JSON view). */
      readonly paidAt: Date | null;
      /** An option's group: the page polls the group, whose answer changes when another option is paid. */
      readonly groupPublicId: string | null;
      /** The view stamps the answer was made from (`readCheckoutStamp`). */
      readonly stamp: string;
    }
  | { readonly type: 'group'; readonly view: CheckoutGroup };

/** Public ids are 16 base64url characters (issuances `newPublicId`); room is left for longer ones. */
const PUBLIC_ID = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * GET /checkout/{public_id}: an issuance's checkout, an option's when the id
 * is an option's, or the group's with every option. An unknown id is
 * `not_found` (the route answers it 400, SPEC "Errors"); an id that cannot be
 * a public id is refused the same way without a query.
 */
/** What a checkout reads besides storage. */
export interface CheckoutDeps {
  readonly catalogue: Catalogue;
  /** `live` of the checkout's network record (decision 0023). */
  readonly isLive: IsLive;
  readonly urls: CheckoutUrls;
}

export async function getCheckout(
  executor: Executor,
  deps: CheckoutDeps,
  publicId: string,
): Promise<FoundCheckout> {
  const found = await findCheckout(executor, deps, publicId);
  if (found === undefined) throw new IvoryError('not_found');
  return found;
}

/** As `getCheckout`, but an unknown id is `undefined` (the hosted page answers it with a 404 page). */
export async function findCheckout(
  executor: Executor,
  deps: CheckoutDeps,
  publicId: string,
): Promise<FoundCheckout | undefined> {
  if (!PUBLIC_ID.test(publicId)) return undefined;
  const { catalogue, isLive, urls } = deps;

  // Invoices are the common case, so the issuance is looked up first.
  const single = await findIssuanceForCheckout(executor, publicId);
  if (single !== undefined) {
    const option = checkoutOption(single.issuance, {
      txHash: single.txHash,
      network: listedNetwork(catalogue.networkRecord(single.issuance.chainId), isLive),
      branding: brandingOf(single.owner, urls.baseUrl),
      merchantName: single.owner.merchantName,
    });
    return { type: 'single', view: checkoutView(option, urls.payUrl), issuanceId: single.issuance.id, paidElsewhere: single.paidElsewhere, paidAt: single.issuance.fundedAt, groupPublicId: single.groupPublicId, stamp: single.stamp };
  }

  const grouped = await findGroupForCheckout(executor, publicId);
  if (grouped === undefined) return undefined;
  const branding = brandingOf(grouped.owner, urls.baseUrl);
  const merchantName = grouped.owner.merchantName;
  const optionViews = grouped.options.map(({ issuance, txHash }) =>
    checkoutOption(issuance, { txHash, network: listedNetwork(catalogue.networkRecord(issuance.chainId), isLive), branding, merchantName }),
  );
  const view = checkoutGroupView(
    grouped.group,
    grouped.options.map(({ issuance }) => issuance),
    optionViews,
    { branding, merchantName, payUrl: urls.payUrl },
  );
  return { type: 'group', view };
}
