import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Catalogue } from '../catalogue/index.js';
import type { ChainAdapters } from '../chains/index.js';
import { isNearInvoiceLimit, withInvoiceLimitGate } from '../limits/index.js';
import { isIssuanceAccessMoved, requireShopAccessForIssuance, type IssuanceAccessCache } from '../merchants/index.js';
import type { Clock } from '../platform/clock.js';
import type { Db } from '../platform/database/database.js';
import { runIdempotentClaimingLast, runIdempotentInOneStatement, type SentAnswer } from '../platform/http/idempotency.js';
import type { Principal } from '../platform/http/principal.js';
import { createInvoiceInOneStatement, createIssuance } from './create-issuance.js';
import { findRecipientProblems } from './find-recipient-problems.js';
import type { ErrorCode } from '../platform/errors.js';
import type { IssuanceKind } from './issuance.js';
import type { IssuanceRequestBody } from './issuance-request.js';

/** What creating an invoice or a deposit takes from the app. */
export interface IssuingDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly catalogue: Catalogue;
  readonly adapters: ChainAdapters;
  readonly payUrl: string;
  /** The issuance terms API keys were granted: filled by the general path, read by the one-statement path. */
  readonly accessCache: IssuanceAccessCache;
}

/** An idempotent creation request as the route parsed it; the request and reply carry its Idempotency-Key and serializer. */
export interface IssuingRequest {
  readonly request: FastifyRequest;
  readonly reply: FastifyReply;
  readonly principal: Principal;
  readonly shopId: string;
  readonly body: IssuanceRequestBody;
}

/**
 * POST /shops/{id}/invoices, whichever way it runs (decision 0019). With
 * issuance terms this process kept for the request's API key: one statement,
 * outside any transaction, which writes the invoice and its answer or
 * nothing. Whenever it wrote nothing (no kept terms, a group, terms that
 * moved, a limit too near for the shared gate, a refusal, a taken key) the
 * general path decides everything again, exactly: access read, then the
 * transaction under the active-invoice gate (decision 0005).
 */
export async function createInvoice(deps: IssuingDeps, input: IssuingRequest): Promise<SentAnswer> {
  const recipientProblems = await findRecipientProblems({ ...deps, now: deps.clock.now() }, input.shopId, 'invoice', input.body);
  const kept = deps.accessCache.accessFor(input.principal, input.shopId);
  if (kept !== undefined) {
    const { catalogue, adapters, payUrl } = deps;
    const answer = await runIdempotentInOneStatement(
      deps.db,
      input.request,
      input.reply,
      (executor, claim) =>
        createInvoiceInOneStatement(
          executor,
          { now: deps.clock.now(), catalogue, adapters, payUrl, recipientProblems },
          { kept, body: input.body, claimAnswer: (body) => claim.claim(202, body) },
        ),
      (error) => isIssuanceAccessMoved(error) || isNearInvoiceLimit(error),
    );
    if (answer !== undefined) return answer;
  }
  return createInTransaction(deps, input, 'invoice', recipientProblems);
}

/** POST /shops/{id}/deposits: always the general path (its limit locks the merchant row; decision 0005). */
export async function createDeposit(deps: IssuingDeps, input: IssuingRequest): Promise<SentAnswer> {
  const recipientProblems = await findRecipientProblems({ ...deps, now: deps.clock.now() }, input.shopId, 'deposit', input.body);
  return createInTransaction(deps, input, 'deposit', recipientProblems);
}

/**
 * The general path: the access read (which takes an invoice's gate and keeps
 * an API key's terms for the next creation), then `createIssuance`, the whole
 * transaction run again under the exclusive gate when the shared one came
 * near the limit.
 */
async function createInTransaction(deps: IssuingDeps, input: IssuingRequest, kind: IssuanceKind, recipientProblems: ReadonlyMap<string, ErrorCode>): Promise<SentAnswer> {
  const { db, clock, catalogue, adapters, payUrl, accessCache } = deps;
  return withInvoiceLimitGate((invoiceLimitGate) =>
    runIdempotentClaimingLast(db, input.request, input.reply, async (trx, claim) => {
      const gateLock = kind === 'invoice' ? invoiceLimitGate.lockOn : undefined;
      const access = await requireShopAccessForIssuance(trx, input.principal, input.shopId, gateLock, accessCache);
      await createIssuance(
        trx,
        { now: clock.now(), catalogue, adapters, payUrl, invoiceLimitGate, recipientProblems },
        { access, kind, body: input.body, claimAnswer: (body) => claim.claim(202, body) },
      );
    }),
  );
}
