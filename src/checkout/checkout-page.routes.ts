import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../app-context.js';
import { familyRules, findSolanaPaymentReference } from '../chains/index.js';
import type { Executor } from '../platform/database/database.js';
import { PUBLIC } from '../platform/http/principal.js';
import { API_PREFIX, type IvoryServer } from '../platform/http/server.js';
import { pageSecurityPolicy, renderCheckoutPage, renderNotFoundPage } from './checkout-page.js';
import { isLang, langFromAcceptLanguage, type Lang } from './checkout-page-text.js';
import { checkoutUrls } from './checkout.routes.js';
import { findCheckout, type FoundCheckout } from './get-checkout.js';

const Params = Type.Object({ public_id: Type.String() });
const Query = Type.Object({ lang: Type.Optional(Type.String()) });

/** The cookie the language switch sets, so the choice sticks across checkouts and reloads. */
const LANG_COOKIE = 'ivory_lang';
const ONE_YEAR_SECONDS = 31_536_000;

function cookieLang(header: string | undefined): Lang | undefined {
  if (header === undefined) return undefined;
  for (const pair of header.split(';')) {
    const [name, value] = pair.trim().split('=');
    if (name === LANG_COOKIE && isLang(value)) return value;
  }
  return undefined;
}

/**
 * The page's language: `?lang=` (the switch's links, which also set the
 * cookie), then the cookie, then Accept-Language, then English.
 */
function pageLang(request: FastifyRequest, reply: FastifyReply, queryLang: string | undefined, cookiePath: string, https: boolean): Lang {
  if (isLang(queryLang)) {
    const secure = https ? '; Secure' : '';
    void reply.header('Set-Cookie', `${LANG_COOKIE}=${queryLang}; Path=${cookiePath}; Max-Age=${ONE_YEAR_SECONDS}; SameSite=Lax; HttpOnly${secure}`);
    return queryLang;
  }
  return cookieLang(request.headers.cookie) ?? langFromAcceptLanguage(request.headers['accept-language']);
}

/**
 * The Solana Pay reference of a single checkout with an address, read
 * for the page only: the JSON checkout, polled often, does not carry it.
 */
async function paymentReferenceOf(executor: Executor, found: FoundCheckout): Promise<string | undefined> {
  if (found.type !== 'single' || !familyRules(found.view.family).paymentReference || found.view.address === '') return undefined;
  return (await findSolanaPaymentReference(executor, found.issuanceId)) ?? undefined;
}

/**
 * The hosted payment page at `{pay_url}/{public_id}` — the `payment_url` of
 * every checkout. Registered outside `/api/v1`, at the path of PAY_URL on this
 * server; when PAY_URL names another host, that host is expected to be routed
 * to this same server (it then also serves `/api/v1`, which the page polls
 * with a same-origin request).
 */
export async function checkoutPageRoutes(server: IvoryServer, context: AppContext): Promise<void> {
  const urls = checkoutUrls(context);
  const deps = { catalogue: context.catalogue, isLive: context.isLive, urls };
  const pagePath = new URL(context.config.payUrl).pathname.replace(/\/+$/, '');
  const imageOrigin = new URL(context.config.publicUrl).origin;

  server.get(
    `${pagePath}/:public_id`,
    { schema: { params: Params, querystring: Query, hide: true }, config: { auth: PUBLIC } },
    async (request, reply) => {
      const nonce = randomBytes(16).toString('base64');
      // `request.protocol` honours X-Forwarded-Proto only from TRUST_PROXY addresses.
      const https = request.protocol === 'https';
      const lang = pageLang(request, reply, request.query.lang, pagePath === '' ? '/' : pagePath, https);
      const found = await findCheckout(context.db, deps, request.params.public_id);
      void reply
        .header('Content-Type', 'text/html; charset=utf-8')
        .header('Content-Security-Policy', pageSecurityPolicy(nonce, imageOrigin))
        .header('Cache-Control', 'no-store')
        .header('Content-Language', lang)
        .header('Vary', 'Accept-Language, Cookie')
        .header('X-Content-Type-Options', 'nosniff')
        .header('Referrer-Policy', 'no-referrer');
      if (https) void reply.header('Strict-Transport-Security', `max-age=${ONE_YEAR_SECONDS}`);
      if (found === undefined) return reply.status(404).send(renderNotFoundPage(nonce, lang));
      const paymentReference = await paymentReferenceOf(context.db, found);
      return reply.send(
        renderCheckoutPage(found, { now: context.clock.now(), payUrl: urls.payUrl, pollPath: `${API_PREFIX}/checkout/`, nonce, lang, paymentReference }),
      );
    },
  );
}
