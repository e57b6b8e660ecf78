import {
  createMcpHandler,
  hostHeaderValidationResponse,
  localhostAllowedHostnames,
  originValidationResponse,
  type AuthInfo,
} from '@modelcontextprotocol/server';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { createIvoryClient } from '../client/index.js';
import type { AppContext } from '../app-context.js';
import { API_PREFIX, type IvoryServer } from '../platform/http/server.js';
import type { AuthRequirement } from '../platform/http/principal.js';
import { injectingFetch } from './inject-fetch.js';
import { buildMcpServer } from './mcp-server.js';
import { packageVersion } from './package-version.js';
import { TOOLS } from './tools/all-tools.js';
import { asErrorEnvelope } from './transport-refusal.js';

/** Any shop API key; sessions are refused (the tools work within the key's one shop). */
const KEY_ONLY: AuthRequirement = { session: false, key: 'any' };

/** What the factory needs of the request, carried in the SDK's pass-through `authInfo`. */
interface Caller {
  readonly shopId: string;
  readonly remoteAddress: string;
  readonly authorization: string;
}

/**
 * `{base_url}/mcp`: MCP over streamable HTTP, stateless (a fresh server per
 * request, nothing kept between them), for a shop API key. The tools call
 * this same server's public API in-process with the caller's own key, so
 * every rule stays in the routes and the answers are those of the stdio
 * server, which calls the API over the network.
 */
export async function mcpRoutes(api: IvoryServer, context: AppContext): Promise<void> {
  const version = packageVersion();
  // DNS rebinding (a hostile page whose name resolves to this server): only our own names, and pages of our own origin.
  const hostnames = [new URL(context.config.publicUrl).hostname, ...localhostAllowedHostnames()];
  const handler = createMcpHandler(
    ({ authInfo }) => {
      const caller = authInfo?.extra as unknown as Caller;
      const client = createIvoryClient({
        baseUrl: `http://in-process${API_PREFIX}`,
        fetch: injectingFetch(api, caller.remoteAddress),
        headers: { authorization: caller.authorization },
      });
      return buildMcpServer({ brand: context.config.brand, version, tools: TOOLS, scopes: authInfo?.scopes ?? [], context: { api: client, shopId: caller.shopId } });
    },
    { legacy: 'stateless', onerror: (error) => context.log.debug({ err: error }, 'mcp request refused') },
  );

  const serve = async (request: FastifyRequest, reply: FastifyReply) => {
    const answer = await answerOf(request);
    if (answer.status < 400) return answer;
    const refusal = await asErrorEnvelope(answer);
    return reply.status(refusal.status).send(refusal.body);
  };
  const answerOf = async (request: FastifyRequest): Promise<Response> => {
    const web = webRequest(request);
    const refused = hostHeaderValidationResponse(web, hostnames) ?? originValidationResponse(web, hostnames);
    if (refused !== undefined) return refused;
    const principal = request.principal;
    // The route's auth requirement admits API keys only; this narrows the type.
    if (principal?.kind !== 'api_key') throw new Error('mcp: the auth layer let a non-key principal through');
    const caller: Caller = { shopId: principal.shopId, remoteAddress: request.ip, authorization: request.headers.authorization ?? '' };
    const authInfo: AuthInfo = { token: '', clientId: principal.keyId, scopes: [...principal.scopes], extra: { ...caller } };
    return handler.fetch(web, { authInfo, ...(request.body === undefined ? {} : { parsedBody: request.body }) });
  };
  const options = { config: { auth: KEY_ONLY }, schema: { hide: true } } as const;
  api.post('/mcp', options, serve);
  // Stateless: GET (a listening stream) and DELETE (ending a session) are answered by the SDK (405).
  api.get('/mcp', options, serve);
  api.delete('/mcp', options, serve);
}

/** The Fastify request's method, URL and headers as a web-standard request, for the SDK. */
function webRequest(request: FastifyRequest): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  // No body: the SDK takes Fastify's parsed one (`parsedBody`); serializing it again could only fail (a body nested too deep to stringify).
  return new Request(`${request.protocol}://${request.host}${request.url}`, { method: request.method, headers });
}
