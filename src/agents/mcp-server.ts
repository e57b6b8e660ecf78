import { McpServer, fromJsonSchema, type CallToolResult } from '@modelcontextprotocol/server';
import { requiredScope } from './api-document.js';
import { PAYMENT_FLOW } from './payment-flow.js';
import { inputSchema, ToolFailure, type IvoryTool, type ToolContext } from './tool.js';

export interface McpServerSettings {
  readonly brand: string;
  readonly version: string;
  readonly tools: readonly IvoryTool[];
  /** The API key's scopes: a tool is listed only when the key may call every operation it needs. */
  readonly scopes: readonly string[];
  readonly context: ToolContext;
}

/** Whether a key with `scopes` may call all the operations `tool` needs (SPEC "Authentication" 3: scopes are exact). */
export function keyMayUse(tool: IvoryTool, scopes: readonly string[]): boolean {
  return [tool.operation, ...(tool.alsoCalls ?? [])].every((operation) => {
    const scope = requiredScope(operation);
    return scope === 'none' || scope === 'any' || scopes.includes(scope);
  });
}

/**
 * One MCP server for one API key: the tools the key may use, each running
 * against Ivory's public API through the context's client, and the payment
 * flow as a resource and a prompt. Stdio and HTTP both build it here.
 */
export function buildMcpServer(settings: McpServerSettings): McpServer {
  const server = new McpServer(
    { name: `${settings.brand.toLowerCase()}-mcp`, title: `${settings.brand} invoicing`, version: settings.version },
    { instructions: PAYMENT_FLOW },
  );
  for (const tool of settings.tools.filter((candidate) => keyMayUse(candidate, settings.scopes))) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: validatorOf(tool),
        annotations: { title: tool.title, ...tool.annotations, openWorldHint: false },
      },
      async (args: Record<string, unknown>) => runTool(tool, args ?? {}, settings.context),
    );
  }
  server.registerResource('payment-flow', 'ivory://guide/payment-flow', { title: 'How a payment works', mimeType: 'text/plain' }, async (uri: URL) => ({
    contents: [{ uri: uri.href, mimeType: 'text/plain', text: PAYMENT_FLOW }],
  }));
  server.registerPrompt('payment_flow', { title: 'How a payment works', description: 'The payment flow and which tool does each step.' }, () => ({
    messages: [{ role: 'user', content: { type: 'text', text: PAYMENT_FLOW } }],
  }));
  return server;
}

// A server is built per HTTP request (stateless); the tools' validators are built once.
const validators = new WeakMap<IvoryTool, ReturnType<typeof fromJsonSchema<Record<string, unknown>>>>();
function validatorOf(tool: IvoryTool) {
  let validator = validators.get(tool);
  if (validator === undefined) {
    // The SDK types JSON Schema more narrowly than the document's plain objects; the shape is checked by the schema test.
    validator = fromJsonSchema<Record<string, unknown>>(inputSchema(tool) as never);
    validators.set(tool, validator);
  }
  return validator;
}

/** Runs a tool: its answer as text (a sentence, then JSON) and structured content, or a tool error with the SPEC code. */
export async function runTool(tool: IvoryTool, args: Record<string, unknown>, context: ToolContext): Promise<CallToolResult> {
  try {
    const answer = await tool.run(args, context);
    const text = answer.data === undefined ? answer.summary : `${answer.summary}\n${JSON.stringify(answer.data, null, 2)}`;
    return { content: [{ type: 'text', text }], ...(answer.data === undefined ? {} : { structuredContent: { result: answer.data } }) };
  } catch (error) {
    if (!(error instanceof ToolFailure)) throw error;
    const details = error.details === undefined ? '' : `\ndetails: ${JSON.stringify(error.details)}`;
    return {
      isError: true,
      content: [{ type: 'text', text: `Error ${error.code}: ${error.advice}${details}` }],
      structuredContent: { error: { code: error.code, message: error.advice, ...(error.details === undefined ? {} : { details: error.details }) } },
    };
  }
}
