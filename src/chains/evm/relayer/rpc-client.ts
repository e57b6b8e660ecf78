import { createPublicClient, fallback, http, type PublicClient } from 'viem';

/** Every RPC call of the relayer is bounded: a node that hangs must not outlive the payout worker's lease. */
export const RPC_TIMEOUT_MS = 10_000;

/**
 * A viem client for one network's node, with a per-call timeout and one quick
 * retry. No chain object: the relayer signs with an explicit chain id, and
 * nothing here relies on viem's chain presets (or on its nonce manager).
 */
export function createRpcClient(rpcUrls: string | readonly string[], timeoutMs = RPC_TIMEOUT_MS): PublicClient {
  const urls = typeof rpcUrls === 'string' ? [rpcUrls] : rpcUrls;
  const endpoints = urls.map((url) => http(url, { timeout: timeoutMs, retryCount: 1, retryDelay: 200 }));
  // Several endpoints (catalogue `rpc_urls`): a call that fails or times out on one is asked of the next.
  const transport = endpoints.length === 1 ? (endpoints[0] as (typeof endpoints)[number]) : fallback(endpoints, { retryCount: 0 });
  return createPublicClient({ transport, cacheTime: 0 });
}
