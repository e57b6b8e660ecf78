/**
 * A bounded JSON-RPC 2.0 call over HTTP for the watcher. Bounded twice: in
 * time (the whole answer within `timeoutMs`) and in size (at most
 * `maxResponseBytes` read, then the connection is dropped). An answer too
 * large to read is not a failure of the node but of the question: the caller
 * asks for fewer blocks (`RpcAnswerTooLarge` is a range limit). Without the
 * size bound a wide `eth_getLogs` either exhausts memory or, behind a client
 * or proxy with its own cap, fails the same way on every retry.
 */

export interface JsonRpcOptions {
  readonly timeoutMs: number;
  readonly maxResponseBytes: number;
  /** Sent with every call (a provider's API key: Tron's `TRON-PRO-API-KEY`). */
  readonly headers?: Readonly<Record<string, string>>;
}

/** A JSON-RPC error object as the node sent it. */
export class JsonRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'JsonRpcError';
  }
}

/** The answer exceeded `maxResponseBytes`: ask for less. */
export class RpcAnswerTooLarge extends Error {
  readonly status = 413;
  constructor(readonly limit: number) {
    super(`the node's answer exceeds the response size limit of ${limit} bytes`);
    this.name = 'RpcAnswerTooLarge';
  }
}

export type JsonRpcCall = (method: string, params?: readonly unknown[]) => Promise<unknown>;

export function jsonRpcOver(url: string, options: JsonRpcOptions): JsonRpcCall {
  let nextId = 0;
  return async (method, params = []) => {
    const id = (nextId += 1);
    const response = await fetch(url, {
      method: 'POST',
      headers: { ...options.headers, 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
      signal: AbortSignal.timeout(options.timeoutMs),
    });
    const text = await readBounded(response, options.maxResponseBytes);
    if (response.status === 413) throw new RpcAnswerTooLarge(options.maxResponseBytes);
    let answer: { result?: unknown; error?: { code?: unknown; message?: unknown; data?: unknown } };
    try {
      answer = JSON.parse(text) as typeof answer;
    } catch {
      throw new Error(`${method}: HTTP ${response.status} with an answer that is not JSON (${text.length} bytes)`);
    }
    if (answer.error !== undefined && answer.error !== null) {
      const { code, message, data } = answer.error;
      throw new JsonRpcError(typeof code === 'number' ? code : 0, `${method}: ${typeof message === 'string' ? message : 'error'}`, data);
    }
    if (!response.ok) throw new Error(`${method}: HTTP ${response.status}`);
    if (!('result' in answer)) throw new Error(`${method}: an answer without result`);
    return answer.result;
  };
}

async function readBounded(response: Response, limit: number): Promise<string> {
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (declared > limit) {
    await response.body?.cancel();
    throw new RpcAnswerTooLarge(limit);
  }
  if (response.body === null) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw new RpcAnswerTooLarge(limit);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
