import { MCP_USAGE, serveMcpOverStdio } from '../agents/index.js';
import { parseCommandFlags } from './parse-command-flags.js';

export { MCP_USAGE };

/** `ivory mcp --api-url URL`: the MCP server on stdio; the key from IVORY_API_KEY (never a flag: flags show in `ps`). */
export async function mcpCommand(args: readonly string[]): Promise<number> {
  const parsed = parseCommandFlags('ivory mcp', MCP_USAGE, args, ['api-url']);
  if ('exitCode' in parsed) return parsed.exitCode;
  const apiUrl = parsed.values['api-url'];
  if (apiUrl === undefined || !/^https?:\/\/\S+$/.test(apiUrl)) {
    console.error('ivory mcp: --api-url must be the http(s) address of an Ivory API, ending in /api/v1');
    return 2;
  }
  const apiKey = process.env.IVORY_API_KEY ?? '';
  if (!apiKey.startsWith('ivk_')) {
    console.error('ivory mcp: set IVORY_API_KEY to a shop API key (ivk_…)');
    return 2;
  }
  try {
    await serveMcpOverStdio({ apiUrl, apiKey });
    return 0;
  } catch (error) {
    if (error instanceof Error && error.name === 'McpStartRefused') {
      console.error(`ivory mcp: ${error.message}`);
      return 1;
    }
    throw error;
  }
}
