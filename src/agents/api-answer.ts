import { ToolFailure } from './tool.js';
import { adviceFor } from './error-advice.js';

interface ErrorEnvelope {
  readonly error?: { readonly code?: string; readonly details?: unknown };
}

/**
 * The data of an answer of the typed client, or a `ToolFailure` carrying the
 * SPEC code of a refusal and a sentence a model can act on.
 */
export function answerOf<Data>(result: { readonly data?: Data; readonly error?: unknown; readonly response: Response }): Data {
  if (result.response.ok && result.data !== undefined) return result.data;
  const envelope = (result.error ?? {}) as ErrorEnvelope;
  const code = envelope.error?.code ?? (result.response.status >= 500 ? 'internal_error' : 'invalid_request');
  throw new ToolFailure(code, adviceFor(code, result.response.status), envelope.error?.details);
}
