import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { createIvoryClient } from '../client/index.js';
import { buildMcpServer } from './mcp-server.js';
import { packageVersion } from './package-version.js';
import { TOOLS } from './tools/all-tools.js';

export const MCP_USAGE = `usage: ivory mcp --api-url URL

Runs an MCP server on standard input and output for an agent's host (Claude
Desktop, an IDE, any MCP client): its tools create and follow invoices,
deposits, payments and webhooks of one shop, through the public API of the
Ivory at URL. Nothing is stored here; every rule is that server's.
  --api-url URL   that Ivory's {base_url}, ending in /api/v1
The shop API key (ivk_…) is read from the environment variable IVORY_API_KEY;
its scopes decide the tools listed (a read key sees no write tool).
See docs/agents.md.`;

export class McpStartRefused extends Error {
  override name = 'McpStartRefused';
}

/**
 * Serves the tools over stdio for the shop of `apiKey`, until standard input
 * closes. The key is checked first (GET /me): a key the server refuses, or a
 * session token, stops here with a sentence instead of a server whose every
 * tool fails.
 */
export async function serveMcpOverStdio(options: { readonly apiUrl: string; readonly apiKey: string }): Promise<void> {
  const api = createIvoryClient({ baseUrl: options.apiUrl.replace(/\/+$/, ''), headers: { authorization: `Bearer ${options.apiKey}` } });
  const me = await api.GET('/me').catch((error: unknown) => {
    throw new McpStartRefused(`nothing answers at ${options.apiUrl} (${(error as Error).message})`);
  });
  const principal = me.data as { type?: string; shop_id?: string; scopes?: string[] } | undefined;
  if (!me.response.ok) {
    throw new McpStartRefused(`${options.apiUrl} refused IVORY_API_KEY (${me.response.status} ${(me.error as { error?: { code?: string } } | undefined)?.error?.code ?? ''})`);
  }
  if (principal?.type !== 'api_key' || principal.shop_id === undefined) throw new McpStartRefused('IVORY_API_KEY must be a shop API key (ivk_…), not a session token');
  const context = { api, shopId: principal.shop_id };
  const scopes = principal.scopes ?? [];
  const version = packageVersion();
  const closed = new Promise<void>((resolve) => process.stdin.once('close', resolve).once('end', resolve));
  const handle = serveStdio(() => buildMcpServer({ brand: 'Ivory', version, tools: TOOLS, scopes, context }));
  await closed;
  await handle.close();
}
