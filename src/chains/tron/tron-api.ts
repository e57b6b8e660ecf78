/**
 * The java-tron full node HTTP API, exactly the subset issue 23 names and no
 * more: an independently written node that serves only these paths is
 * pointed at Ivory. Every call is a POST of JSON with `visible: false` (so
 * addresses travel as `41…` hex), bounded by a timeout, never retried here.
 */

export type TronApiPath =
  | '/wallet/getnowblock'
  | '/walletsolidity/getnowblock'
  | '/wallet/getblockbynum'
  | '/wallet/getchainparameters'
  | '/wallet/getaccount'
  | '/wallet/getaccountresource'
  | '/wallet/triggerconstantcontract'
  | '/wallet/triggersmartcontract'
  | '/wallet/deploycontract'
  | '/wallet/broadcasttransaction'
  | '/wallet/gettransactioninfobyid'
  | '/walletsolidity/gettransactioninfobyid';

export interface TronApiEndpoint {
  /** The node's HTTP API root (no trailing slash needed). */
  readonly url: string;
  /** Sent as `TRON-PRO-API-KEY` when set. */
  readonly apiKey: string | undefined;
}

/** The node answered, but not with what was asked (an `Error` field, a non-2xx status, no JSON). */
export class TronApiError extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(`${path}: ${message}`);
    this.name = 'TronApiError';
  }
}

export type TronCall = <Answer>(path: TronApiPath, body: object) => Promise<Answer>;

export interface TronApi {
  readonly call: TronCall;
  /** The node's EVM JSON-RPC (`eth_getLogs` and friends) and the headers it needs. */
  readonly jsonRpcUrl: string;
  readonly headers: Readonly<Record<string, string>>;
}

const MAX_ANSWER_BYTES = 16 * 1024 * 1024;

export function createTronApi(endpoint: TronApiEndpoint, timeoutMs = 10_000): TronApi {
  const root = endpoint.url.replace(/\/+$/, '');
  const headers: Record<string, string> = endpoint.apiKey === undefined ? {} : { 'TRON-PRO-API-KEY': endpoint.apiKey };
  const call: TronCall = async <Answer>(path: TronApiPath, body: object): Promise<Answer> => {
    const response = await fetch(`${root}${path}`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ visible: false, ...body }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await response.text();
    if (text.length > MAX_ANSWER_BYTES) throw new TronApiError(path, `an answer of ${text.length} bytes`);
    if (!response.ok) throw new TronApiError(path, `HTTP ${response.status}`);
    let answer: unknown;
    try {
      answer = text.trim() === '' ? {} : JSON.parse(text);
    } catch {
      throw new TronApiError(path, `HTTP ${response.status} with an answer that is not JSON (${text.length} bytes)`);
    }
    if (typeof answer !== 'object' || answer === null) throw new TronApiError(path, 'an answer that is not a JSON object');
    if ('Error' in answer) throw new TronApiError(path, String((answer as { Error: unknown }).Error));
    return answer as Answer;
  };
  return { call, jsonRpcUrl: `${root}/jsonrpc`, headers };
}
