/** What other modules (the composition root, the CLI) may use of agents: the MCP server over HTTP and stdio. */
export { mcpRoutes } from './mcp.routes.js';
export { serveMcpOverStdio, MCP_USAGE } from './stdio.js';
