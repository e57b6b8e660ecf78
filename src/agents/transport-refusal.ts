import { errorEnvelope, type ErrorCode } from '../platform/errors.js';

/** The SPEC code for an HTTP status the SDK refuses a request with, before any tool runs. */
const CODE_BY_STATUS: Readonly<Record<number, ErrorCode>> = {
  403: 'forbidden',
  404: 'not_found',
  413: 'payload_too_large',
  415: 'json_content_type_required',
};

/** What the SDK's refusal names as the fault, for `details.field`. */
const FIELD_BY_STATUS: Readonly<Record<number, string>> = { 405: 'method', 406: 'Accept' };

/**
 * The SDK answers transport-level refusals (a foreign Origin or Host, a
 * missing Accept, GET or DELETE on a stateless endpoint, a malformed
 * message) with a JSON-RPC error body. MCP lets that body be anything ("MAY
 * comprise a JSON-RPC error"), and every other answer under {base_url} is
 * SPEC's error envelope, so the status is kept and the body becomes the
 * envelope, with the SDK's sentence as the reason.
 */
export async function asErrorEnvelope(answer: Response): Promise<{ status: number; body: ReturnType<typeof errorEnvelope> }> {
  const text = await answer.text();
  let reason = text;
  try {
    reason = String((JSON.parse(text) as { error?: { message?: unknown } }).error?.message ?? text);
  } catch {
    // Not JSON: the text itself is the reason.
  }
  const code = CODE_BY_STATUS[answer.status] ?? 'invalid_request';
  if (code === 'not_found') return { status: answer.status, body: errorEnvelope(code) };
  // 403 is the DNS-rebinding check: say which header failed it.
  const field = code === 'forbidden' ? (/host/i.test(reason) ? 'Host' : 'Origin') : (FIELD_BY_STATUS[answer.status] ?? 'body');
  const details = { field, reason: reason || `refused with HTTP ${answer.status}` };
  return { status: answer.status, body: errorEnvelope(code, details) };
}
