import type { NetworkFamily } from '../catalogue/index.js';
import type { ChainAdapter, ChainAdapters } from './chain-adapter.js';
import { sandboxAdapter } from './sandbox/sandbox-adapter.js';

export type { AddressRequest, ChainAdapter, ChainAdapters, PayoutBroadcast, PayoutRequest } from './chain-adapter.js';
export { sandboxAddress, sandboxTxHash } from './sandbox/sandbox-adapter.js';

/**
 * The adapters of this deployment: the sandbox adapter serves every sandbox
 * issuance; live networks are served only by the adapters passed in (by chain
 * id). None is built into the app yet, so live issuances answer
 * `network_not_ready` unless the composition root is given some (BuildOptions
 * `liveChainAdapters`).
 */
export function createChainAdapters(live: ReadonlyMap<number, ChainAdapter> = new Map()): ChainAdapters {
  return {
    adapterFor(sandbox: boolean, chainId: number, _family: NetworkFamily): ChainAdapter | undefined {
      return sandbox ? sandboxAdapter : live.get(chainId);
    },
  };
}
