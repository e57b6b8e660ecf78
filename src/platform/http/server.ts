import Fastify, { type FastifyBaseLogger, type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Clock } from '../clock.js';
import { IvoryError, errorEnvelope, fieldError, statusOf, type ErrorCode } from '../errors.js';
import type { AuthRequirement, CredentialSource, Principal, PrincipalResolver } from './principal.js';
import { meetsMfaRequirement, principalBucket } from './principal.js';
import { enforceCsrf, readSessionCookie, type SessionCookieSettings } from './session-cookie.js';
import type { RateLimiter } from './rate-limit.js';
import { readIdempotencyKey } from './idempotency.js';
import { loggerOptions } from '../logging.js';
import { requestIdOf } from './request-id.js';
import { WHOLE_BODY, describeViolation } from './validation-details.js';
import { isDatabaseUnavailable } from '../database/retry.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Who may call the route (SPEC "Endpoints", Auth column). Required on every API route. */
    auth?: AuthRequirement;
    /** The route needs an Idempotency-Key (SPEC "Authentication" 7). */
    idempotent?: boolean;
    /**
     * The SPEC code for a body field of the wrong type or shape, by field name;
     * unknown fields are always `invalid_json`, anything else `invalid_request`.
     */
    fieldErrors?: Readonly<Record<string, ErrorCode>>;
    /**
     * SPEC "Errors" gives `not_found` two statuses: 404 as a rule, 400 on the
     * checkout and identity delete routes. Those routes set it; the use case
     * only says `not_found`.
     */
    notFoundStatus?: 400;
  }
  interface FastifyInstance {
    /** Every route that needs an Idempotency-Key, as registered (tests enumerate them). */
    readonly idempotentRoutes: readonly IdempotentRoute[];
  }
  interface FastifyRequest {
    principal: Principal | null;
    /** Where the principal's credential came from; null without a principal. */
    authenticatedBy: CredentialSource | null;
  }
}

export interface IdempotentRoute {
  readonly method: string;
  /** The full path pattern, prefix included: `/api/v1/shops/:shop_id/invoices`. */
  readonly url: string;
}

export type IvoryServer = FastifyInstance<
  import('node:http').Server,
  import('node:http').IncomingMessage,
  import('node:http').ServerResponse,
  import('fastify').FastifyBaseLogger,
  TypeBoxTypeProvider
>;

export interface HttpCoreOptions {
  readonly logLevel: string;
  /** The process's logger, shared so that its lines and the server's come out in order; absent, one is made. */
  readonly logger?: FastifyBaseLogger;
  readonly trustProxy: readonly string[];
  readonly resolvePrincipal: PrincipalResolver;
  readonly rateLimiter: RateLimiter;
  readonly clock: Clock;
  readonly bodyLimit?: number;
  /** Sensitive changes need the session's second factor passed within this (SPEC "Authentication" 6). */
  readonly mfaFreshWindowMs?: number;
  /** Dashboard cookie sessions (SPEC "Authentication" 2); absent, no cookie is ever read. */
  readonly sessionCookie?: SessionCookieSettings;
}

export const API_PREFIX = '/api/v1';

/** One registered route, as the route table records it. */
export interface RouteEntry {
  readonly method: string;
  readonly url: string;
  readonly auth: AuthRequirement | undefined;
}

const routeTables = new WeakMap<object, RouteEntry[]>();

/**
 * Every route registered on a server built by `createHttpCore` (HEAD twins of
 * GET routes left out), in registration order: the access-matrix test checks
 * that each shop route has a row, so a new route cannot skip the decision.
 */
export function registeredRoutes(server: IvoryServer): readonly RouteEntry[] {
  return routeTables.get(server) ?? [];
}
const LEGACY_PREFIX = `${API_PREFIX}/projects`;
const LEGACY_MERCHANT_SHOPS = /^\/api\/v1\/merchants\/([^/?]+)\/projects(?=[/?]|$)/;

/**
 * SPEC "Versioning": `/projects` routes are aliases of `/shops`, also under a
 * merchant (`/merchants/{id}/projects`). Rewritten before routing, so every
 * shop route, whichever module adds it, has its alias with the same handler,
 * and the idempotency fingerprint sees the `/shops` path.
 */
export function legacyToCurrent(url: string): string {
  if (url.startsWith(LEGACY_PREFIX) && /^[/?]|^$/.test(url.slice(LEGACY_PREFIX.length))) {
    return `${API_PREFIX}/shops${url.slice(LEGACY_PREFIX.length)}`;
  }
  return url.replace(LEGACY_MERCHANT_SHOPS, (_all, merchantId: string) => `${API_PREFIX}/merchants/${merchantId}/shops`);
}

/**
 * The HTTP core every module's routes run in: the error envelope, the auth
 * layer, rate limits, the Idempotency-Key check, content-type and JSON rules.
 * Order per request: resolve principal → rate limit → enforce the route's auth
 * → Idempotency-Key present → parse and validate the body → handler.
 */
export function createHttpCore(options: HttpCoreOptions): IvoryServer {
  const app = Fastify({
    ...(options.logger === undefined ? { logger: loggerOptions(options.logLevel) } : { loggerInstance: options.logger }),
    // Every request log line carries `reqId`: the caller's X-Request-Id when it is sane, else a new one.
    requestIdHeader: false,
    genReqId: requestIdOf,
    trustProxy: options.trustProxy.length > 0 ? [...options.trustProxy] : false,
    bodyLimit: options.bodyLimit ?? 1024 * 1024,
    return503OnClosing: true,
    // Long enough for any real identifier; longer path parameters cannot name
    // anything and are answered by `frameworkErrors` below.
    routerOptions: { maxParamLength: 512 },
    // Errors Fastify raises before routing (a bad percent-escape, an overlong
    // parameter) would otherwise answer in Fastify's own shape, not SPEC's.
    frameworkErrors: (error, request, reply) => sendFrameworkError(error, reply.header('X-Request-Id', request.id) as unknown as FastifyReply),
    forceCloseConnections: 'idle',
    // Legacy `/projects` routes are aliases of `/shops` (SPEC "Versioning").
    rewriteUrl: (request) => legacyToCurrent(request.url ?? '/'),
    ajv: {
      // Bodies are validated as sent: no silent coercion, no silent stripping of
      // unknown fields (mass assignment must fail, with invalid_json).
      customOptions: { coerceTypes: false, removeAdditional: false, allErrors: false },
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  const routeTable: RouteEntry[] = [];
  routeTables.set(app, routeTable);
  app.addHook('onRoute', (route) => {
    for (const method of Array.isArray(route.method) ? route.method : [route.method]) {
      if (method !== 'HEAD') routeTable.push({ method, url: route.url, auth: route.config?.auth });
    }
  });

  app.decorateRequest('principal', null);
  app.decorateRequest('authenticatedBy', null);
  app.decorate('sessionCookie', options.sessionCookie ?? null);
  const idempotentRoutes: IdempotentRoute[] = [];
  app.decorate('idempotentRoutes', idempotentRoutes);
  app.addHook('onRoute', (route) => {
    if (route.config?.idempotent !== true) return;
    for (const method of [route.method].flat()) idempotentRoutes.push({ method, url: route.url });
  });
  // Bodies are JSON only: without Fastify's text parser, text/plain is refused
  // as json_content_type_required instead of reaching validation.
  app.removeContentTypeParser('text/plain');

  app.addHook('onRequest', async (request, reply) => {
    reply.header('X-Request-Id', request.id);
  });
  app.addHook('onRequest', async (request, reply) => {
    const auth = request.routeOptions.config.auth;
    const credential = credentialOf(request, auth, options.sessionCookie);
    request.principal = credential === undefined ? null : await resolveCredential(request, options.resolvePrincipal, credential);
    request.authenticatedBy = request.principal === null ? null : (credential?.from ?? null);

    const bucket = request.principal === null ? `ip:${request.ip}` : principalBucket(request.principal);
    const decision = await options.rateLimiter.hit(bucket, request.method !== 'GET' && request.method !== 'HEAD', options.clock.now());
    if (!decision.allowed) {
      reply.header('Retry-After', '60');
      throw new IvoryError('rate_limited');
    }

    if (auth !== undefined && auth !== 'none') {
      enforceAuth(auth, request.principal);
      if (request.authenticatedBy === 'cookie' && request.principal?.kind === 'session' && options.sessionCookie !== undefined) {
        enforceCsrf(request, request.principal, options.sessionCookie);
      }
      enforceMfa(auth, request.principal, options.clock.now(), options.mfaFreshWindowMs ?? DEFAULT_MFA_FRESH_WINDOW_MS);
    }
    if (request.routeOptions.config.idempotent === true) readIdempotencyKey(request);
  });

  app.setNotFoundHandler((_request, reply) => {
    void reply.status(404).send(errorEnvelope('not_found'));
  });

  app.setErrorHandler((error: FastifyError | IvoryError, request, reply) => sendError(error, request, reply));

  return app;
}

function sendFrameworkError(error: FastifyError, reply: FastifyReply): void {
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    void reply.status(statusOf(new IvoryError('not_found'))).send(errorEnvelope('not_found'));
    return;
  }
  const refusal = fieldError('invalid_request', 'path', 'is not a valid URL path (check its percent-encoding)');
  void reply.status(statusOf(refusal)).send(errorEnvelope(refusal.code, refusal.details));
}

interface Credential {
  readonly token: string;
  readonly from: CredentialSource;
}

/**
 * The request's credential on a route that takes one: the Authorization
 * header when present (a malformed one is no credential, and the cookie is
 * not consulted), otherwise the session cookie.
 */
function credentialOf(request: FastifyRequest, auth: AuthRequirement | undefined, cookie: SessionCookieSettings | undefined): Credential | undefined {
  if (auth === undefined || auth === 'none') return undefined;
  const header = request.headers.authorization;
  if (header !== undefined) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    return match?.[1] === undefined ? undefined : { token: match[1], from: 'bearer' };
  }
  if (cookie === undefined) return undefined;
  const token = readSessionCookie(request.headers.cookie, cookie.name);
  return token === undefined ? undefined : { token, from: 'cookie' };
}

async function resolveCredential(request: FastifyRequest, resolve: PrincipalResolver, credential: Credential): Promise<Principal | null> {
  const principal = await resolve(credential.token, request.ip, credential.from);
  // An API key never comes from a cookie, whatever the resolver says.
  return credential.from === 'cookie' && principal?.kind !== 'session' ? null : principal;
}

function enforceAuth(auth: Exclude<AuthRequirement, 'none'>, principal: Principal | null): void {
  if (principal === null) throw new IvoryError('unauthorized');
  if (principal.kind === 'session') {
    if (!auth.session) throw new IvoryError('forbidden');
    return;
  }
  // An API key: only where the route accepts keys, and then with the exact scope
  // (SPEC "Authentication" 3: `write` does not imply `read`).
  if (auth.key === undefined) throw new IvoryError('forbidden');
  if (auth.key !== 'any' && !principal.scopes.includes(auth.key)) throw new IvoryError('forbidden');
}

const DEFAULT_MFA_FRESH_WINDOW_MS = 10 * 60 * 1000;

/** SPEC "Authentication" 6: 403 mfa_required until the session has passed its user's second factor (decision 0012). */
function enforceMfa(auth: Exclude<AuthRequirement, 'none'>, principal: Principal | null, now: Date, freshWindowMs: number): void {
  if (principal?.kind !== 'session') return;
  if (!meetsMfaRequirement(principal, auth.mfa ?? 'completed', now, freshWindowMs)) throw new IvoryError('mfa_required');
}

function sendError(error: FastifyError | IvoryError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (error instanceof IvoryError) {
    const routeStatus = error.code === 'not_found' ? request.routeOptions.config?.notFoundStatus : undefined;
    return reply.status(routeStatus ?? statusOf(error)).send(errorEnvelope(error.code, error.details));
  }
  const refusal = refusalOfFrameworkError(error, request);
  if (refusal !== undefined) return reply.status(statusOf(refusal)).send(errorEnvelope(refusal.code, refusal.details));
  if (error.statusCode === 404) return reply.status(404).send(errorEnvelope('not_found'));
  if (isDatabaseUnavailable(error)) {
    // A restart or failover of the database: nothing was committed, the client may retry as is.
    request.log.warn({ err: error, requestId: request.id }, 'database unavailable');
    return reply.status(503).header('retry-after', String(UNAVAILABLE_RETRY_AFTER_S)).send(errorEnvelope('unavailable'));
  }
  // Anything else is ours to fix: log it with the request id, answer a bare 500.
  request.log.error({ err: error, requestId: request.id }, 'unhandled error');
  return reply.status(500).send(errorEnvelope('internal_error'));
}

/** Seconds a client waits before retrying a request refused while the database was unreachable. */
const UNAVAILABLE_RETRY_AFTER_S = 5;

const CONTENT_TYPE_PROBLEM = { field: 'Content-Type', reason: 'must be application/json' } as const;
const NOT_JSON = { field: WHOLE_BODY, reason: 'is not valid JSON' } as const;

/**
 * The SPEC code of an error Fastify raised while reading or validating the
 * request, with `details: {field, reason}` naming the input at fault; undefined
 * for anything else (a bug: a 500).
 */
function refusalOfFrameworkError(error: FastifyError, request: FastifyRequest): IvoryError | undefined {
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new IvoryError('json_content_type_required', CONTENT_TYPE_PROBLEM);
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new IvoryError('json_content_type_required', { field: 'Content-Length', reason: 'must be the length of the body' });
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return fieldError('invalid_json', WHOLE_BODY, 'is empty: send a JSON object');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new IvoryError('invalid_json', NOT_JSON);
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return tooLarge(request);
  }
  if (error.validation !== undefined) {
    if (error.validationContext === 'body' && request.body === undefined) {
      return isJson(request) ? fieldError('invalid_json', WHOLE_BODY, 'required: send a JSON object') : new IvoryError('json_content_type_required', CONTENT_TYPE_PROBLEM);
    }
    const code = codeOfViolation(error, request);
    const context = error.validationContext ?? 'body';
    const schema = (request.routeOptions.schema as Record<string, unknown> | undefined)?.[context];
    // A malformed credential field is `unauthorized`: no hint of what would pass.
    return code === 'unauthorized' ? new IvoryError(code) : new IvoryError(code, describeViolation(error.validation, schema, context));
  }
  if (error instanceof SyntaxError || (error.statusCode === 400 && /JSON/i.test(error.message))) return new IvoryError('invalid_json', NOT_JSON);
  if (error.statusCode === 415) return new IvoryError('json_content_type_required', CONTENT_TYPE_PROBLEM);
  if (error.statusCode === 413) return tooLarge(request);
  return undefined;
}

function tooLarge(request: FastifyRequest): IvoryError {
  return fieldError('payload_too_large', WHOLE_BODY, `must be at most ${request.routeOptions.bodyLimit} bytes`);
}

/** Unknown fields are `invalid_json`; a field of the wrong type or shape, the route's `fieldErrors` code or `invalid_request`. */
function codeOfViolation(error: FastifyError, request: FastifyRequest): ErrorCode {
  const first = error.validation?.[0];
  if (first === undefined) return 'invalid_request';
  if (first.keyword === 'additionalProperties') return 'invalid_json';
  if (error.validationContext !== 'body') return 'invalid_request';
  if (first.instancePath === '' && first.keyword === 'type') return 'invalid_json';
  const field =
    first.instancePath.split('/')[1] ??
    (first.keyword === 'required' ? String((first.params as { missingProperty?: unknown }).missingProperty) : undefined);
  const mapped = field === undefined ? undefined : request.routeOptions.config.fieldErrors?.[field];
  return mapped ?? 'invalid_request';
}

function isJson(request: FastifyRequest): boolean {
  return /^application\/([a-z.+-]*\+)?json\b/i.test(request.headers['content-type'] ?? '');
}
