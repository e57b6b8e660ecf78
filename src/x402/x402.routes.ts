import { encodePaymentRequiredHeader, encodePaymentResponseHeader } from '@x402/core/http';
import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../app-context.js';
import { PUBLIC } from '../platform/http/principal.js';
import type { IvoryServer } from '../platform/http/server.js';
import { readX402Offer } from './read-x402-offer.js';
import { settleX402Payment } from './settle-x402-payment.js';
import { paymentRequired, type X402Refusal } from './x402-offer.js';

const Params = Type.Object({ public_id: Type.String() });

/** The one table of refusal → status (STYLE "Habits" 5): never 402, since no payment can help. */
const REFUSAL_STATUS: Readonly<Record<X402Refusal['code'], number>> = {
  not_found: 404,
  x402_unavailable: 404,
  invoice_not_open: 409,
  settlement_pending: 409,
};

/**
 * `GET {payment_url}/x402` (docs/decisions/0035): x402 v2 over HTTP for a live invoice. Without
 * `PAYMENT-SIGNATURE`: 402 with the requirements in `PAYMENT-REQUIRED` (base64 JSON) and as the
 * body. With it: the authorisation is verified and settled by the relayer; 200 with
 * `PAYMENT-RESPONSE` (the settlement transaction), or 402 again with the error. An invoice that
 * is not offered or no longer payable answers 404 or 409 with the x402 shape (`error`, no
 * `accepts`). Beside the hosted page, on `{pay_url}`, and like it outside the OpenAPI document.
 */
export async function x402Routes(server: IvoryServer, context: AppContext): Promise<void> {
  const payUrl = context.config.payUrl;
  const pagePath = new URL(payUrl).pathname.replace(/\/+$/, '');
  const deps = { db: context.db, secrets: context.secrets, clock: context.clock, catalogue: context.catalogue, isLive: context.isLive, payUrl };

  server.get(
    `${pagePath}/:public_id/x402`,
    { schema: { params: Params, hide: true }, config: { auth: PUBLIC } },
    async (request, reply) => {
      void reply.header('Cache-Control', 'no-store').header('Access-Control-Expose-Headers', 'PAYMENT-REQUIRED, PAYMENT-RESPONSE');
      const publicId = request.params.public_id;
      const signature = request.headers['payment-signature'];
      if (typeof signature !== 'string' || signature === '') {
        const offer = await readX402Offer(context.db, deps, publicId);
        if (offer.kind === 'refused') return refuse(reply, offer.resource, offer.refusal);
        return askForPayment(reply, paymentRequired(offer.resource, [offer.requirements]));
      }
      const outcome = await settleX402Payment(deps, publicId, signature);
      switch (outcome.kind) {
        case 'refused':
          return refuse(reply, outcome.resource, outcome.refusal);
        case 'failed':
          request.log.info({ publicId, error: outcome.error, tx: outcome.response?.transaction }, 'x402 payment not settled');
          if (outcome.response !== undefined) void reply.header('PAYMENT-RESPONSE', encodePaymentResponseHeader(outcome.response));
          return askForPayment(reply, paymentRequired(outcome.resource, outcome.accepts, outcome.error));
        case 'settled':
          request.log.info({ publicId, tx: outcome.response.transaction, gasUsed: outcome.gasUsed.toString() }, 'x402 payment settled');
          return reply
            .status(200)
            .header('PAYMENT-RESPONSE', encodePaymentResponseHeader(outcome.response))
            .send({ ...outcome.response, payment_url: `${payUrl}/${publicId}` });
      }
    },
  );
}

function askForPayment(reply: FastifyReply, body: ReturnType<typeof paymentRequired>): FastifyReply {
  return reply.status(402).header('PAYMENT-REQUIRED', encodePaymentRequiredHeader(body)).send(body);
}

function refuse(reply: FastifyReply, resource: ReturnType<typeof paymentRequired>['resource'], refusal: X402Refusal): FastifyReply {
  const { code, ...details } = refusal;
  return reply.status(REFUSAL_STATUS[code]).send({ ...paymentRequired(resource, [], code), ...details });
}
