import { createEvmRpc, isRangeLimitError, type EvmRpc, type EvmRpcOptions } from './evm-rpc.js';

/**
 * Several RPC endpoints of one network behind the watcher's `EvmRpc` (issue 22
 * item 3: `rpc_urls`). One endpoint answers a whole pass, so a pass never
 * mixes two nodes' views (a head read from one and logs from a lagging other
 * would skip blocks). An endpoint is distrusted for a while, and the pass is
 * abandoned to start over on the next one (`EndpointSwitched`), when:
 * - it fails (transport error, timeout, 5xx, not JSON) — a range limit is not
 *   a failure of the node but of the question, and is passed on as it is;
 * - its head is below one another endpoint already answered, by more than a
 *   couple of blocks (a lagging or restarted node, a stale backend);
 * - its hash of a stored block disagrees with another endpoint's that agrees
 *   with what the watcher stored (`confirmReorg`): it is on its own fork, and
 *   is never believed into rewinding.
 * When every endpoint is distrusted, the one distrusted longest ago is asked
 * anyway: the watcher's own rules (wait for a head below the cursor, rewind
 * only on a different hash) still hold for a single node.
 */
export class EndpointSwitched extends Error {
  constructor(
    readonly from: string,
    readonly to: string,
    readonly why: string,
  ) {
    super(`RPC endpoint ${from} ${why}; switching to ${to}`);
    this.name = 'EndpointSwitched';
  }
}

export interface FailoverOptions extends EvmRpcOptions {
  /** How long a failing or lagging endpoint is passed over. */
  readonly distrustMs?: number;
  /** Blocks an endpoint's head may trail the highest head seen before it counts as behind. */
  readonly headTolerance?: number;
  readonly now?: () => number;
}

interface Endpoint {
  readonly url: string;
  readonly rpc: EvmRpc;
  distrustedUntil: number;
}

export interface FailoverEvmRpc extends EvmRpc {
  /**
   * Asked before a rewind: `hash` is what the watcher stored at `number` and
   * the current endpoint now disagrees. When another endpoint still has `hash`
   * there, the current one is distrusted and this throws (`EndpointSwitched`):
   * the pass must not rewind.
   */
  confirmReorg(number: bigint, hash: string): Promise<void>;
  /** The endpoint answering now (for logs and status). */
  currentUrl(): string;
}

const DEFAULT_DISTRUST_MS = 60_000;
const DEFAULT_HEAD_TOLERANCE = 2;

export function createFailoverEvmRpc(urls: readonly string[], options: FailoverOptions): FailoverEvmRpc {
  if (urls.length === 0) throw new Error('at least one RPC URL is needed');
  const now = options.now ?? (() => Date.now());
  const distrustMs = options.distrustMs ?? DEFAULT_DISTRUST_MS;
  const tolerance = BigInt(options.headTolerance ?? DEFAULT_HEAD_TOLERANCE);
  const endpoints: Endpoint[] = urls.map((url) => ({ url, rpc: createEvmRpc(url, options), distrustedUntil: 0 }));
  let current = 0;
  let highestHead = -1n;

  const distrust = (why: string): never => {
    const from = endpoints[current] as Endpoint;
    from.distrustedUntil = now() + distrustMs;
    const trusted = endpoints.findIndex((endpoint, index) => index !== current && endpoint.distrustedUntil <= now());
    // None trusted: the one whose distrust ends first gets the next pass.
    current = trusted !== -1 ? trusted : endpoints.reduce((best, endpoint, index) => (endpoint.distrustedUntil < (endpoints[best] as Endpoint).distrustedUntil ? index : best), 0);
    throw new EndpointSwitched(from.url, (endpoints[current] as Endpoint).url, why);
  };

  /** Runs `ask` on the current endpoint; a node failure moves on to the next one (a single endpoint just fails). */
  const onCurrent = async <T>(ask: (rpc: EvmRpc) => Promise<T>): Promise<T> => {
    const endpoint = endpoints[current] as Endpoint;
    try {
      return await ask(endpoint.rpc);
    } catch (error) {
      if (endpoints.length === 1 || isRangeLimitError(error) || error instanceof EndpointSwitched) throw error;
      return distrust(`failed (${error instanceof Error ? error.message : String(error)})`);
    }
  };

  return {
    async headBlock() {
      // Every trusted endpoint's head is read with the current one's: a node stuck at an old
      // head answers without any error, and only another node's head shows it is behind.
      const others = endpoints.filter((endpoint, index) => index !== current && endpoint.distrustedUntil <= now());
      const [head, ...theirs] = await Promise.all([
        onCurrent((rpc) => rpc.headBlock()),
        ...others.map((endpoint) => endpoint.rpc.headBlock().catch(() => null)),
      ]);
      for (const other of theirs) if (other !== null && other !== undefined && other > highestHead) highestHead = other;
      // Behind another endpoint's head: passed over while another endpoint is trusted. With none
      // left, this head is taken as it is (the watcher waits while a head is below its cursor).
      if (others.length > 0 && head + tolerance < highestHead) distrust(`answered head ${head}, below ${highestHead} seen on another endpoint`);
      if (head > highestHead) highestHead = head;
      return head;
    },
    finalizedBlock: () => onCurrent((rpc) => rpc.finalizedBlock()),
    blockHash: (number) => onCurrent((rpc) => rpc.blockHash(number)),
    transferLogs: (tokens, from, to) => onCurrent((rpc) => rpc.transferLogs(tokens, from, to)),
    transferReceipt: (txHash) => onCurrent((rpc) => rpc.transferReceipt(txHash)),
    async confirmReorg(number, hash) {
      for (const [index, endpoint] of endpoints.entries()) {
        if (index === current || endpoint.distrustedUntil > now()) continue;
        const theirs = await endpoint.rpc.blockHash(number).catch(() => null);
        if (theirs === hash) distrust(`disagrees on block ${number} with ${endpoint.url}, which still has the stored hash`);
      }
    },
    currentUrl: () => (endpoints[current] as Endpoint).url,
  };
}
