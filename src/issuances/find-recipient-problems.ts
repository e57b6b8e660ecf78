import type { Catalogue } from '../catalogue/index.js';
import type { ChainAdapters } from '../chains/index.js';
import { findShopPayoutColumns } from '../merchants/index.js';
import type { Db } from '../platform/database/database.js';
import type { ErrorCode } from '../platform/errors.js';
import type { IssuanceKind } from './issuance.js';
import { parseIssuanceRequest, type IssuanceRequestBody } from './issuance-request.js';
import { recipientProblemKey } from './plan-options.js';

const NONE: ReadonlyMap<string, ErrorCode> = new Map();

/**
 * What the chains say against the shop's recipients for the requested
 * options (Solana: `solana_recipient_token_account_required`), asked of the
 * adapters that have something to say, BEFORE the creation's transaction
 * (ARCHITECTURE: never hold a transaction across a network call). Nothing is
 * refused here: `planOptions` refuses in SPEC's order, after the access read,
 * so a caller without access learns nothing. Families whose adapters ask
 * nothing cost nothing (no read at all).
 */
export async function findRecipientProblems(
  deps: { readonly db: Db; readonly catalogue: Catalogue; readonly adapters: ChainAdapters; readonly now: Date },
  shopId: string,
  kind: IssuanceKind,
  body: IssuanceRequestBody,
): Promise<ReadonlyMap<string, ErrorCode>> {
  let options;
  try {
    options = parseIssuanceRequest(kind, body, deps.now).options;
  } catch {
    return NONE; // planOptions refuses it the same way
  }
  const asked = options.flatMap((option) => {
    const network = deps.catalogue.network(option.chainId);
    const token = network === undefined ? undefined : deps.catalogue.token(option.chainId, option.token);
    const adapter = network === undefined ? undefined : deps.adapters.adapterFor(false, network.chainId, network.family);
    return network === undefined || token === undefined || adapter?.recipientProblem === undefined ? [] : [{ network, token: token.address, adapter }];
  });
  if (asked.length === 0) return NONE;
  const shop = await findShopPayoutColumns(deps.db, shopId);
  if (shop === undefined || shop.sandbox) return NONE;
  const problems = new Map<string, ErrorCode>();
  for (const { network, token, adapter } of asked) {
    // A `wallet` target pays the merchant's service wallet, which the operator set up.
    const columns = { evm: [shop.recipient, shop.payout_target], tron: [shop.tron_recipient, shop.tron_payout_target], solana: [shop.solana_recipient, shop.solana_payout_target] } as const;
    const [recipient, target] = columns[network.family];
    if (recipient === null || recipient === '' || target !== 'address') continue;
    const problem = await adapter.recipientProblem?.(recipient, token);
    if (problem !== undefined) problems.set(recipientProblemKey(network.chainId, token), problem);
  }
  return problems;
}
