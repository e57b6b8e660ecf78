import fs from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { Middleware } from 'openapi-fetch';
import { createIvoryClient, type IvoryClient } from '../../src/client/index.js';

type Json = Record<string, unknown>;

/**
 * The typed client (src/client) over HTTP, checking every answer against the
 * committed OpenAPI document: the body of each status must match the schema
 * the document gives for that operation and status, and the status itself
 * must be documented. A mismatch rejects the call, so a test using this client
 * fails when the document and the server disagree.
 *
 * Ajv is Fastify's own validator (a transitive dependency), used here only to
 * read the document's JSON Schema 2020-12.
 */
export function typedClient(baseUrl: string, token: string | null): IvoryClient {
  const client = createIvoryClient({ baseUrl, ...(token === null ? {} : { headers: { authorization: `Bearer ${token}` } }) });
  client.use(conformsToDocument);
  return client;
}

const document = JSON.parse(fs.readFileSync('openapi/openapi.json', 'utf8')) as {
  paths: Record<string, Record<string, { responses: Record<string, Json> }>>;
  components: { schemas: Json; responses: Record<string, Json> };
};

// The document's component references, pointed at one schema resource Ajv knows.
const rewritten = JSON.parse(JSON.stringify(document).replaceAll('"#/components/schemas/', '"components#/$defs/')) as typeof document;
const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
ajv.addSchema({ $id: 'components', $defs: rewritten.components.schemas });

export const conformsToDocument: Middleware = {
  async onResponse({ request, response, schemaPath }) {
    const where = `${request.method} ${schemaPath} → ${response.status}`;
    const operation = rewritten.paths[schemaPath]?.[request.method.toLowerCase()];
    if (operation === undefined) throw new Error(`${where}: operation not in the document`);
    let answer = operation.responses[String(response.status)];
    if (answer === undefined) throw new Error(`${where}: status not in the document`);
    if (typeof answer.$ref === 'string') answer = rewritten.components.responses[answer.$ref.replace('#/components/responses/', '')] ?? {};
    const schema = (answer.content as Record<string, { schema: Json }> | undefined)?.['application/json']?.schema;
    if (schema === undefined) return undefined;
    const body: unknown = await response.clone().json();
    const validate = ajv.compile(schema);
    if (!validate(body)) throw new Error(`${where}: answer does not match the document: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body)}`);
    return undefined;
  },
};
