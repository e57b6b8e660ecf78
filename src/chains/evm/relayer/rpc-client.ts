import { createPublicClient, http, type PublicClient } from 'viem';

/** Every RPC call of the relayer is bounded: a node that hangs must not outlive the payout worker's lease. */
export const RPC_TIMEOUT_MS = 10_000;

/**
 * A viem client for one network's node, with a per-call timeout and one quick
 * retry. No chain object: the relayer signs with an explicit chain id, and
 * nothing here relies on viem's chain presets (or on its nonce manager).
 */
export function createRpcClient(rpcUrl: string, timeoutMs = RPC_TIMEOUT_MS): PublicClient {
  return createPublicClient({ transport: http(rpcUrl, { timeout: timeoutMs, retryCount: 1, retryDelay: 200 }), cacheTime: 0 });
}
