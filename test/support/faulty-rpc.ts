import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The ways a JSON-RPC provider fails, as seen from Ivory (issue 22 item 4).
 * Each applies to the requests `FaultyRpc.hits` selects; the others go to the
 * node untouched.
 */
export type RpcFault =
  /** An HTTP 5xx with an HTML body, as a load balancer answers. */
  | { readonly kind: 'status'; readonly status: number }
  /** No answer at all: the client must time out. */
  | { readonly kind: 'hang' }
  /** A JSON-RPC error object, as providers refuse work (-32005 "limit exceeded", range too large). */
  | { readonly kind: 'rpc_error'; readonly code: number; readonly message: string }
  /** The first half of the node's answer, then a clean end of the response: JSON that stops mid-way. */
  | { readonly kind: 'truncated' }
  /** 200 with a body that is not JSON at all. */
  | { readonly kind: 'malformed' }
  /** Half of the answer, then the connection is destroyed. */
  | { readonly kind: 'dropped' }
  /** A well-formed answer that says too little: no logs at all (a lossy node or indexer). */
  | { readonly kind: 'empty_result' };

export interface FaultyRpc {
  readonly url: string;
  /** The fault to inject, or null to forward everything. */
  fault: RpcFault | null;
  /** Which requests the fault hits (all by default): by method and the request's sequence number. */
  hits: (method: string, sequence: number) => boolean;
  /**
   * A node stuck at an old head, or one whose head went back: `eth_blockNumber`
   * answers this, and no block or receipt above it is known.
   */
  headAt: bigint | null;
  /** A node on its own fork: blocks from this number on answer another hash than the real chain's. */
  forkedFrom: bigint | null;
  /** Milliseconds each request of a method waits before it is forwarded (a slow provider). */
  delayMs: (method: string) => number;
  /** Requests seen, and how many got a fault, per method. */
  readonly seen: Map<string, number>;
  readonly faulted: Map<string, number>;
  close(): Promise<void>;
}

/** A JSON-RPC hop in front of a real node (anvil) that fails on demand. */
export async function startFaultyRpc(target: string): Promise<FaultyRpc> {
  const hanging = new Set<http.ServerResponse>();
  let sequence = 0;
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      const calls = JSON.parse(body) as { id: number; method: string } | { id: number; method: string }[];
      const methods = (Array.isArray(calls) ? calls : [calls]).map((call) => call.method);
      const method = methods.join(',');
      sequence += 1;
      for (const one of methods) proxy.seen.set(one, (proxy.seen.get(one) ?? 0) + 1);
      const fault = proxy.fault !== null && proxy.hits(method, sequence) ? proxy.fault : null;
      if (fault !== null) for (const one of methods) proxy.faulted.set(one, (proxy.faulted.get(one) ?? 0) + 1);
      if (fault?.kind === 'hang') {
        hanging.add(response);
        response.on('close', () => hanging.delete(response));
        return;
      }
      if (fault?.kind === 'status') {
        response.writeHead(fault.status, { 'content-type': 'text/html' });
        response.end(`<html><body>${fault.status} upstream trouble</body></html>`);
        return;
      }
      if (fault?.kind === 'malformed') {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end('<!doctype html><p>not json');
        return;
      }
      if (fault?.kind === 'empty_result' && !Array.isArray(calls)) {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ jsonrpc: '2.0', id: calls.id, result: [] }));
        return;
      }
      if (fault?.kind === 'rpc_error' && !Array.isArray(calls)) {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ jsonrpc: '2.0', id: calls.id, error: { code: fault.code, message: fault.message } }));
        return;
      }
      const head = proxy.headAt;
      if (head !== null && !Array.isArray(calls) && calls.method === 'eth_blockNumber') {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ jsonrpc: '2.0', id: calls.id, result: `0x${head.toString(16)}` }));
        return;
      }
      const wait = proxy.delayMs(method);
      (wait > 0 ? new Promise((resolve) => setTimeout(resolve, wait)) : Promise.resolve())
        .then(() => fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body }))
        .then(async (answer) => {
          let text = await answer.text();
          if (head !== null) text = asNodeAt(text, head);
          if (proxy.forkedFrom !== null) text = asForkFrom(text, proxy.forkedFrom);
          if (fault?.kind === 'truncated' || fault?.kind === 'dropped') {
            response.writeHead(answer.status, { 'content-type': 'application/json' });
            response.write(text.slice(0, Math.max(1, Math.floor(text.length / 2))));
            if (fault.kind === 'dropped') response.socket?.destroy();
            else response.end();
            return;
          }
          response.writeHead(answer.status, { 'content-type': 'application/json' });
          response.end(text);
        })
        .catch(() => response.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const proxy: FaultyRpc = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    fault: null,
    hits: () => true,
    headAt: null,
    forkedFrom: null,
    delayMs: () => 0,
    seen: new Map(),
    faulted: new Map(),
    async close() {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  return proxy;
}

/** A block or receipt above `head` is unknown to a node that has only reached `head`. */
function asNodeAt(answer: string, head: bigint): string {
  try {
    const parsed = JSON.parse(answer) as { result?: { blockNumber?: string; number?: string } | null };
    const block = parsed.result?.blockNumber ?? parsed.result?.number;
    if (typeof block === 'string' && BigInt(block) > head) return JSON.stringify({ ...parsed, result: null });
  } catch {
    // Not JSON (an upstream error page): passed on as it is.
  }
  return answer;
}

/** A block at or above `from` gets another hash (its last hex digit changed): the same heights, another chain. */
function asForkFrom(answer: string, from: bigint): string {
  try {
    const parsed = JSON.parse(answer) as { result?: { number?: string; hash?: string } | null };
    const block = parsed.result;
    if (typeof block?.number === 'string' && typeof block.hash === 'string' && BigInt(block.number) >= from) {
      const hash = block.hash;
      return JSON.stringify({ ...parsed, result: { ...block, hash: `${hash.slice(0, -1)}${hash.endsWith('0') ? '1' : '0'}` } });
    }
  } catch {
    // Not JSON: passed on as it is.
  }
  return answer;
}
