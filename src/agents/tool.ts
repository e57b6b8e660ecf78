import type { IvoryClient } from '../client/index.js';
import type { JsonSchema } from './api-document.js';

/** What every tool runs with: the typed client of Ivory's API, already carrying the key, and the key's shop. */
export interface ToolContext {
  readonly api: IvoryClient;
  readonly shopId: string;
}

/**
 * MCP's tool annotations, all three stated on every tool (a host shows them
 * and may ask the user before a call that is not read-only).
 */
export interface ToolHints {
  readonly readOnlyHint: boolean;
  readonly destructiveHint: boolean;
  readonly idempotentHint: boolean;
}

export interface IvoryTool {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  /** The API operation whose required scope decides who sees the tool (api-document.ts `requiredScope`). */
  readonly operation: string;
  /** Further operations the tool calls that need a scope of their own (public ones need not be named). */
  readonly alsoCalls?: readonly string[];
  readonly annotations: ToolHints;
  /** Properties of the input object; each from the route's schema where the route has the field (api-document.ts `routeField`). */
  readonly input: Readonly<Record<string, JsonSchema>>;
  readonly required?: readonly string[];
  /** The answer for the model: a sentence, then the data. Throws `ToolFailure` for an outcome the model should act on. */
  run(args: Record<string, unknown>, context: ToolContext): Promise<ToolAnswer>;
}

export interface ToolAnswer {
  readonly summary: string;
  readonly data?: unknown;
}

/**
 * A refused call, with SPEC's error code (or, when Ivory's API was never
 * reached, the code it would have answered) and a sentence saying what to do.
 */
export class ToolFailure extends Error {
  constructor(
    readonly code: string,
    readonly advice: string,
    readonly details?: unknown,
  ) {
    super(`${code}: ${advice}`);
    this.name = 'ToolFailure';
  }
}

/** The tool's input schema: an object with exactly these properties. */
export function inputSchema(tool: Pick<IvoryTool, 'input' | 'required'>): JsonSchema {
  return { type: 'object', properties: tool.input, required: [...(tool.required ?? [])], additionalProperties: false };
}
