import createClient, { type ClientOptions } from 'openapi-fetch';
import type { paths } from '../../openapi/schema.js';

export type { components, operations, paths } from '../../openapi/schema.js';

/**
 * A typed client of the API, from the committed OpenAPI document
 * (openapi/openapi.json; `npm run openapi` regenerates both). `baseUrl` is
 * {base_url}, ending in `/api/v1`.
 */
export function createIvoryClient(options: ClientOptions & { readonly baseUrl: string }) {
  return createClient<paths>(options);
}

export type IvoryClient = ReturnType<typeof createIvoryClient>;
