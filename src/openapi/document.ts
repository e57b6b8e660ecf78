import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import type { RouteOptions } from 'fastify';
import { ADMIN_PREFIX } from '../admin/index.js';
import { ERROR_CODES, IvoryError, statusOf, type ErrorCode } from '../platform/errors.js';
import type { AuthRequirement } from '../platform/http/principal.js';
import { API_PREFIX } from '../platform/http/server.js';
import { OPERATIONS, TAGS, type Answer, type OperationDoc } from './operations.js';
import { ErrorEnvelope } from './records.js';

type Json = Record<string, unknown>;

/** Where the document keeps what transform learnt of a route until transformObject uses it. */
const META = 'x-ivory-route';
/** Marks a schema to become a named component (removed from the output). */
const COMPONENT = 'x-ivory-component';

interface RouteMeta {
  readonly idempotent: boolean;
  /** Error statuses the route can answer, each a reference to a shared response. */
  readonly errors: readonly number[];
}

/** The shared error answers, by status, all with the error envelope. */
const ERROR_RESPONSES: Readonly<Record<number, { readonly name: string; readonly description: string }>> = {
  400: { name: 'BadRequest', description: 'The request is invalid' },
  401: { name: 'Unauthorized', description: 'Credential missing, invalid, expired or outside the key\'s IP allowlist' },
  403: { name: 'Forbidden', description: 'The principal may not do this' },
  404: { name: 'NotFound', description: 'Unknown resource' },
  409: { name: 'Conflict', description: 'The Idempotency-Key was used with a different body' },
  413: { name: 'PayloadTooLarge', description: 'The body is over the size limit' },
  429: { name: 'RateLimited', description: 'Too many requests: wait the seconds in Retry-After' },
  500: { name: 'InternalError', description: 'Platform failure: retry with the same Idempotency-Key and increasing delays' },
};

/** SPEC "Authentication": the three bearer credentials. */
const SECURITY_SCHEMES = {
  session: {
    type: 'http',
    scheme: 'bearer',
    description:
      'A session token from wallet, e-mail code or identity-provider sign-in. Dashboard cookie sessions also work; their writes need a matching Origin and X-CSRF-Token.',
  },
  apiKey: {
    type: 'http',
    scheme: 'bearer',
    description: 'A shop API key (`ivk_…`). The listed scope is required exactly: `write` does not imply `read`.',
  },
  adminToken: { type: 'http', scheme: 'bearer', description: 'The operator\'s ADMIN_TOKEN.' },
} as const;

/** `METHOD path` as OPERATIONS keys it: relative to {base_url} for API routes, Fastify's `:param` as `{param}`. */
export function operationKey(method: string, url: string): string {
  const relative = url.startsWith(`${API_PREFIX}/`) ? url.slice(API_PREFIX.length) : url;
  return `${method.toUpperCase()} ${relative.replace(/:([A-Za-z0-9_]+)/g, '{$1}')}`;
}

export interface DocumentSettings {
  readonly brand: string;
  /** {root_url}: the default of the document's server variable. */
  readonly publicUrl: string;
}

/**
 * The @fastify/swagger options: the document is generated from the routes
 * (their TypeBox schemas and `config`), completed from OPERATIONS.
 */
export function openApiOptions(settings: DocumentSettings): FastifyDynamicSwaggerOptions {
  const rootServer = { url: '{root_url}', variables: { root_url: { default: settings.publicUrl, description: 'The installation\'s PUBLIC_URL.' } } };
  return {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: `${settings.brand} API`,
        version: '1',
        summary: 'Stablecoin invoices, deposits and webhooks.',
        description: 'Version 1 of the API, under {root_url}/api/v1. See docs/api-guide.md in the repository for a walk-through.',
        // The repository's LICENSE (package.json `license`); OpenAPI 3.1 takes an SPDX identifier here.
        license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
      },
      servers: [{ ...rootServer, url: `{root_url}${API_PREFIX}` }],
      // Declared here, not in transformObject: the plugin looks schemes up while it builds each operation.
      components: { securitySchemes: SECURITY_SCHEMES },
    },
    transform: ({ schema, url, route }) => ({ schema: routeSchema(schema as Json | undefined, url, route, rootServer), url }),
    transformObject: (documentObject) => completeDocument((documentObject as unknown as { openapiObject: Json }).openapiObject) as never,
  };
}

function routeSchema(schema: Json | undefined, url: string, route: RouteOptions, rootServer: Json): Json {
  const method = [route.method].flat()[0] ?? 'GET';
  const key = operationKey(method, url);
  const operation = OPERATIONS[key];
  // Without an entry the route is left as the route file has it: the document
  // test reports it (no operationId, summary or tag).
  if (operation === undefined) return schema ?? {};
  const config = (route.config ?? {}) as { auth?: AuthRequirement; idempotent?: boolean; notFoundStatus?: 400 };
  const admin = url.startsWith(`${ADMIN_PREFIX}/`);
  const response = { ...((schema?.response as Json | undefined) ?? {}) };
  if (operation.answer !== undefined) response[String(operation.answer.status)] = answerSchema(operation.answer);
  nameParts(response, operation);
  const meta: RouteMeta = { idempotent: config.idempotent === true, errors: errorStatuses(schema, url, config, admin) };
  const body = documentedBody(schema?.body, operation);
  return {
    ...schema,
    ...(body === undefined ? {} : { body }),
    hide: false,
    operationId: operation.id,
    summary: operation.summary,
    ...(operation.description === undefined ? {} : { description: operation.description }),
    tags: [(operation as OperationDoc & { tag: string }).tag],
    security: admin ? [{ adminToken: [] }] : security(config.auth),
    ...(url.startsWith(`${API_PREFIX}/`) ? {} : { servers: [rootServer] }),
    response,
    [META]: meta,
  };
}

/**
 * The body as the document states it: the route's, with the fields OPERATIONS
 * states more exactly put in. The route keeps validating with its own schema
 * (the plugin's transform changes the document only).
 */
function documentedBody(body: unknown, operation: OperationDoc): Json | undefined {
  if (operation.bodyFields === undefined) return undefined;
  if (body === undefined) throw new Error(`${operation.id}: body fields given but the route takes no body`);
  const documented = plain(body);
  const properties = documented.properties as Json | undefined;
  for (const [field, fieldSchema] of Object.entries(operation.bodyFields)) {
    if (properties?.[field] === undefined) throw new Error(`${operation.id}: the body has no field ${field} to document`);
    properties[field] = plain(fieldSchema);
  }
  return documented;
}

function answerSchema(answer: Answer): Json {
  if (answer.mediaType !== undefined) {
    return { 'x-response-description': answer.description, content: { [answer.mediaType]: { schema: { type: 'string', contentMediaType: answer.mediaType } } } };
  }
  if (answer.schema === undefined) return { 'x-response-description': answer.description, type: 'null' };
  return { ...plain(answer.schema), 'x-response-description': answer.description };
}

/** Marks the parts of the success answer that OPERATIONS names, for completeDocument to hoist. */
function nameParts(response: Json, operation: OperationDoc): void {
  if (operation.names === undefined) return;
  const status = Object.keys(response).find((code) => code.startsWith('2'));
  if (status === undefined) throw new Error(`${operation.id}: names given but no success answer`);
  const success = plain(response[status]);
  response[status] = success;
  for (const [pointer, name] of Object.entries(operation.names)) {
    const part = pointer.split('/').slice(1).reduce<unknown>((node, step) => (node as Json | undefined)?.[step], success) as Json | undefined;
    if (part === undefined || typeof part !== 'object') throw new Error(`${operation.id}: nothing at ${pointer} to name ${name}`);
    part[COMPONENT] = name;
  }
}

/** SPEC "Endpoints" Auth column, from the route's own `config.auth`. */
function security(auth: AuthRequirement | undefined): Json[] {
  if (auth === undefined || auth === 'none') return [];
  const requirements: Json[] = [];
  if (auth.session) requirements.push({ session: [] });
  if (auth.key !== undefined) requirements.push({ apiKey: auth.key === 'any' ? [] : [auth.key] });
  return requirements;
}

function errorStatuses(
  schema: Json | undefined,
  url: string,
  config: { auth?: AuthRequirement; idempotent?: boolean; notFoundStatus?: 400 },
  admin: boolean,
): number[] {
  const statuses = new Set<number>([429, 500]);
  const takesInput = schema?.body !== undefined || schema?.querystring !== undefined || schema?.params !== undefined || /:/.test(url);
  if (takesInput || config.idempotent === true) statuses.add(400);
  if (schema?.body !== undefined) statuses.add(413);
  if (admin || (config.auth !== undefined && config.auth !== 'none')) {
    statuses.add(401);
    statuses.add(403);
  }
  // Every route can name an unknown record through its path; the operator API is 404 as a whole without ADMIN_TOKEN.
  if ((/:/.test(url) && config.notFoundStatus !== 400) || admin) statuses.add(404);
  if (config.idempotent === true) statuses.add(409);
  return [...statuses].sort();
}

function completeDocument(document: Json): Json {
  const components = (document.components ?? {}) as Json;
  const schemas = { ...((components.schemas as Json | undefined) ?? {}), Error: plain(ErrorEnvelope) } as Record<string, Json>;
  (schemas.Error as { properties: { error: { properties: Json } } }).properties.error.properties.code = {
    type: 'string',
    enum: ERROR_CODES,
    description: 'Branch on the HTTP status first, then on this code.',
  };

  for (const item of Object.values((document.paths ?? {}) as Record<string, Json>)) {
    for (const operation of Object.values(item) as Json[]) {
      const meta = operation[META] as RouteMeta | undefined;
      if (meta === undefined) continue;
      delete operation[META];
      if (meta.idempotent) operation.parameters = [...((operation.parameters as Json[] | undefined) ?? []), { $ref: '#/components/parameters/IdempotencyKey' }];
      const responses = operation.responses as Json;
      // The plugin's placeholder for a schema without a description says nothing; the summary does.
      for (const answer of Object.values(responses) as Json[]) if (answer.description === 'Default Response') answer.description = operation.summary;
      for (const status of meta.errors) {
        responses[String(status)] ??= { $ref: `#/components/responses/${ERROR_RESPONSES[status]?.name}` };
      }
    }
  }

  hoistComponents(document, schemas);
  unionOfBranches(document.paths);
  replaceCopies(document.paths, schemas);
  for (const [name, schema] of Object.entries(schemas)) replaceCopies(schema, schemas, name);

  return {
    ...document,
    paths: withLegacyAliases((document.paths ?? {}) as Record<string, Json>),
    tags: TAGS.map((tag) => ({ name: tag.name, description: tag.description })),
    components: {
      ...components,
      schemas: Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b))),
      parameters: {
        IdempotencyKey: {
          name: 'Idempotency-Key',
          in: 'header',
          required: true,
          description:
            'Any string of 1 to 128 bytes, new for each new operation. Repeating it with the same body returns the stored answer; with a different body, 409 idempotency_conflict.',
          schema: { type: 'string', minLength: 1, maxLength: 128 },
        },
      },
      responses: Object.fromEntries(
        Object.entries(ERROR_RESPONSES).map(([status, { name, description }]) => [
          name,
          {
            description: `${description}. Codes: ${codesOf(Number(status)).join(', ')}.`,
            ...(status === '429' ? { headers: { 'Retry-After': { description: 'Seconds to wait.', schema: { type: 'integer' } } } } : {}),
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
          },
        ]),
      ),
    },
  };
}

/** `/shops…` → `/projects…`, `/merchants/{merchant_id}/shops…` → `…/projects…`; undefined for a path without an alias. */
export function legacyAliasOf(path: string): string | undefined {
  if (/^\/shops(\/|$)/.test(path)) return `/projects${path.slice('/shops'.length)}`;
  const merchant = /^(\/merchants\/\{merchant_id\})\/shops(\/|$)/.exec(path);
  return merchant === null ? undefined : `${merchant[1]}/projects${path.slice(merchant[0].length - (merchant[2]?.length ?? 0))}`;
}

/**
 * SPEC "Versioning": every `/shops` route answers under `/projects` too (the
 * HTTP core rewrites the path before routing, so the alias shares the handler
 * and the idempotency scope). Documented as deprecated copies, so that
 * clients generated from the document can still call them and are told to move.
 */
function withLegacyAliases(paths: Record<string, Json>): Record<string, Json> {
  const aliases: Record<string, Json> = {};
  for (const [path, item] of Object.entries(paths)) {
    const alias = legacyAliasOf(path);
    if (alias === undefined) continue;
    aliases[alias] = Object.fromEntries(
      Object.entries(item).map(([method, operation]) => {
        const copy = plain(operation);
        const id = String(copy.operationId);
        return [
          method,
          {
            ...copy,
            operationId: `legacy${id.charAt(0).toUpperCase()}${id.slice(1)}`,
            summary: `${String(copy.summary)} (legacy alias)`,
            description: `Deprecated alias of ${method.toUpperCase()} ${path}: the same operation, handler and idempotency scope. New integrations use the \`/shops\` path.`,
            deprecated: true,
          },
        ];
      }),
    );
  }
  return { ...paths, ...aliases };
}

function codesOf(status: number): ErrorCode[] {
  const codes = ERROR_CODES.filter((code) => statusOf(new IvoryError(code)) === status);
  // SPEC "Errors": not_found is 400 on the checkout and identity routes.
  return status === 400 ? [...codes, 'not_found'] : codes;
}

/** Moves every schema marked with a component name into `schemas`, leaving a $ref. */
function hoistComponents(node: unknown, schemas: Record<string, Json>): void {
  if (node === null || typeof node !== 'object') return;
  for (const [key, value] of Object.entries(node as Json)) {
    if (value === null || typeof value !== 'object') continue;
    hoistComponents(value, schemas);
    const name = (value as Json)[COMPONENT];
    if (typeof name !== 'string') continue;
    const { [COMPONENT]: _marker, 'x-response-description': _description, ...schema } = value as Json;
    const known = schemas[name];
    if (known !== undefined && canonical(known) !== canonical(schema)) {
      throw new Error(`OpenAPI component ${name} is given two different shapes`);
    }
    schemas[name] = schema;
    (node as Json)[key] = { $ref: `#/components/schemas/${name}` };
  }
}

/**
 * A route may tell its two answer shapes apart with if/then/else (cheaper for
 * the serializer); the document says "one of the two", which client generators
 * understand.
 */
function unionOfBranches(node: unknown): void {
  if (node === null || typeof node !== 'object') return;
  for (const value of Object.values(node as Json)) unionOfBranches(value);
  const schema = node as Json;
  if (schema.if !== undefined && schema.then !== undefined && schema.else !== undefined) {
    schema.anyOf = [schema.else, schema.then];
    delete schema.if;
    delete schema.then;
    delete schema.else;
    delete schema.type;
  }
}

/** Replaces inline copies of a named component (a Network inside a Checkout) by a $ref to it. */
function replaceCopies(node: unknown, schemas: Record<string, Json>, self?: string): void {
  if (node === null || typeof node !== 'object') return;
  const byShape = new Map(Object.entries(schemas).filter(([name]) => name !== self).map(([name, schema]) => [canonical(schema), name]));
  const visit = (parent: Json | unknown[]) => {
    for (const [key, value] of Object.entries(parent)) {
      if (value === null || typeof value !== 'object') continue;
      const name = Array.isArray(value) ? undefined : byShape.get(canonical(value as Json));
      if (name !== undefined && (value as Json).type === 'object') (parent as Json)[key] = { $ref: `#/components/schemas/${name}` };
      else visit(value as Json);
    }
  };
  visit(node as Json);
}

/** JSON with sorted keys, for comparing schemas by shape. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    item !== null && typeof item === 'object' && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item as Json).sort(([a], [b]) => a.localeCompare(b)))
      : item,
  );
}

/** A TypeBox schema as plain JSON (its symbol-keyed metadata dropped). */
function plain(schema: unknown): Json {
  return JSON.parse(JSON.stringify(schema)) as Json;
}
