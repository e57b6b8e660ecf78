import { readFileSync } from 'node:fs';

/** A JSON Schema object, as the OpenAPI document writes it. */
export type JsonSchema = Record<string, unknown>;

interface Parameter {
  readonly name: string;
  readonly in: string;
  readonly description?: string;
  readonly schema: JsonSchema;
}

interface Operation {
  readonly operationId: string;
  readonly parameters?: readonly (Parameter | { readonly $ref: string })[];
  readonly requestBody?: { readonly content: Record<string, { readonly schema: JsonSchema }> };
  readonly security?: readonly Record<string, readonly string[]>[];
}

interface Document {
  readonly paths: Record<string, Record<string, Operation>>;
  readonly components: { readonly parameters: Record<string, Parameter> };
}

/**
 * The committed API document (openapi/openapi.json, generated from the route
 * schemas; test/api/openapi.test.ts fails when it differs from what the
 * server serves). The MCP tools take their field schemas and their required
 * scope from it, so a tool cannot drift from the route it calls. Read from
 * the file rather than the running server: the stdio server is a client of a
 * remote Ivory and has no router at hand. Both src/agents/ and dist/agents/
 * sit two levels below the repository root.
 */
let loaded: Document | undefined;
function document(): Document {
  loaded ??= JSON.parse(readFileSync(new URL('../../openapi/openapi.json', import.meta.url), 'utf8')) as Document;
  return loaded;
}

function operation(operationId: string): Operation {
  for (const item of Object.values(document().paths)) {
    for (const candidate of Object.values(item)) if (candidate.operationId === operationId) return candidate;
  }
  throw new Error(`the API document has no operation ${operationId}`);
}

/**
 * The API-key scope an operation requires, from its `security`: `read` or
 * `write`, `any` for a key of any scope, `none` for a public operation; an
 * operation keys cannot call is a bug in the tool that names it.
 */
export function requiredScope(operationId: string): 'read' | 'write' | 'any' | 'none' {
  const security = operation(operationId).security ?? [];
  if (security.length === 0) return 'none';
  const key = security.find((requirement) => requirement.apiKey !== undefined)?.apiKey;
  if (key === undefined) throw new Error(`${operationId} does not accept API keys`);
  const scope = key[0];
  return scope === 'read' || scope === 'write' ? scope : 'any';
}

/**
 * The schema of one input of an operation — a body field, or a query or path
 * parameter — with the tool's own description for a model put over the
 * route's (the only thing a tool may change; the drift test checks the rest).
 */
export function routeField(operationId: string, name: string, description: string): JsonSchema {
  const found = operation(operationId);
  const bodyField = (found.requestBody?.content['application/json']?.schema.properties as Record<string, JsonSchema> | undefined)?.[name];
  const parameter = found.parameters?.find((candidate): candidate is Parameter => 'name' in candidate && candidate.name === name)?.schema;
  const schema = bodyField ?? parameter;
  if (schema === undefined) throw new Error(`${operationId} has no input named ${name}`);
  return { ...schema, description };
}

/** The Idempotency-Key header's schema (1 to 128 bytes), for the tools that let a caller pass one. */
export function idempotencyKeyField(description: string): JsonSchema {
  const header = document().components.parameters.IdempotencyKey;
  if (header === undefined) throw new Error('the API document has no IdempotencyKey parameter');
  return { ...header.schema, description };
}
