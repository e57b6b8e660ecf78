import { randomBytes } from 'node:crypto';
import { Type } from 'typebox';
import type { AppContext } from '../app-context.js';
import { PUBLIC } from '../platform/http/principal.js';
import { API_PREFIX, type IvoryServer } from '../platform/http/server.js';
import { pageSecurityPolicy, renderCheckoutPage, renderNotFoundPage } from './checkout-page.js';
import { checkoutUrls } from './checkout.routes.js';
import { findCheckout } from './get-checkout.js';

const Params = Type.Object({ public_id: Type.String() });

/**
 * The hosted payment page at `{pay_url}/{public_id}` — the `payment_url` of
 * every checkout. Registered outside `/api/v1`, at the path of PAY_URL on this
 * server; when PAY_URL names another host, that host is expected to be routed
 * to this same server (it then also serves `/api/v1`, which the page polls
 * with a same-origin request).
 */
export async function checkoutPageRoutes(server: IvoryServer, context: AppContext): Promise<void> {
  const urls = checkoutUrls(context);
  const deps = { catalogue: context.catalogue, urls };
  const pagePath = new URL(context.config.payUrl).pathname.replace(/\/+$/, '');
  const imageOrigin = new URL(context.config.publicUrl).origin;

  server.get(`${pagePath}/:public_id`, { schema: { params: Params, hide: true }, config: { auth: PUBLIC } }, async (request, reply) => {
    const nonce = randomBytes(16).toString('base64');
    const found = await findCheckout(context.db, deps, request.params.public_id);
    void reply
      .header('Content-Type', 'text/html; charset=utf-8')
      .header('Content-Security-Policy', pageSecurityPolicy(nonce, imageOrigin))
      .header('Cache-Control', 'no-store')
      .header('X-Content-Type-Options', 'nosniff')
      .header('Referrer-Policy', 'no-referrer');
    if (found === undefined) return reply.status(404).send(renderNotFoundPage(nonce));
    return reply.send(
      renderCheckoutPage(found, { now: context.clock.now(), payUrl: urls.payUrl, pollPath: `${API_PREFIX}/checkout/`, nonce }),
    );
  });
}
