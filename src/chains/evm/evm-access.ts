import { DEFAULT_SWEEP_BATCH_MAX } from './evm-network.js';
import { accessFields, isWebUrl, type AccessFail, type AccessParser, type AccessSection } from '../access-section.js';

/**
 * How Ivory reaches a live EVM network (catalogue file only, never in an API
 * answer: an RPC URL often carries a provider's key).
 */
export interface EvmAccess {
  readonly family: 'evm';
  /**
   * The node endpoints, in the catalogue's order (`rpc_url` first, then
   * `rpc_urls`), never empty. The watcher and the relayer use the first one;
   * failing over to the others is issue 22's work, so all are kept.
   */
  readonly rpcUrls: readonly [string, ...string[]];
  /** Blocks after the transfer's block before transfer.confirmed; 0 means at inclusion. */
  readonly confirmations: number;
  /** The operator's fee wallet; when absent it is read from the factory. */
  readonly feeWallet: string | undefined;
  readonly pollIntervalMs: number;
  readonly maxBlockRange: number;
  readonly useFinalizedTag: boolean;
  /** The most sweeps of one factory sent in one `sweepBatch` transaction (docs/decisions/0037). */
  readonly sweepBatchMax: number;
}

const MAX_CONFIRMATIONS = 10_000;
const DEFAULT_POLL_INTERVAL_MS = 1_000;
const DEFAULT_MAX_BLOCK_RANGE = 2_000;
const TUNING = ['confirmations', 'fee_wallet', 'poll_interval_ms', 'max_block_range', 'use_finalized_tag', 'sweep_batch_max'] as const;
/** More would risk a block's gas limit on small networks for no saving (docs/decisions/0037). */
const MAX_SWEEP_BATCH = 100;

/**
 * An EVM entry is live with a node (`rpc_url`, `rpc_urls` or both) and both
 * factories. A node without the factories is refused rather than left not
 * live: Ivory could not compute a payment address there.
 */
export const evmAccessParser: AccessParser<EvmAccess> = {
  fields: ['rpc_url', 'rpc_urls', ...TUNING],
  parse(section: AccessSection, fail: AccessFail): EvmAccess | undefined {
    const read = accessFields(section, fail);
    if (!read.has('rpc_url') && !read.has('rpc_urls')) {
      read.requireFor('rpc_url', TUNING);
      return undefined;
    }
    const rpcUrls = readRpcUrls(section, fail);
    read.requireFactories('rpc_url');
    return Object.freeze({
      family: 'evm',
      rpcUrls,
      confirmations: read.integer('confirmations', 0, MAX_CONFIRMATIONS, 0),
      feeWallet: read.address('fee_wallet'),
      pollIntervalMs: read.integer('poll_interval_ms', 50, 600_000, DEFAULT_POLL_INTERVAL_MS),
      maxBlockRange: read.integer('max_block_range', 1, 1_000_000, DEFAULT_MAX_BLOCK_RANGE),
      useFinalizedTag: read.boolean('use_finalized_tag', false),
      sweepBatchMax: read.integer('sweep_batch_max', 1, MAX_SWEEP_BATCH, DEFAULT_SWEEP_BATCH_MAX),
    });
  },
};

/** `rpc_url` (one URL) and `rpc_urls` (a list) may be given alone or together; each URL once. */
function readRpcUrls(section: AccessSection, fail: AccessFail): readonly [string, ...string[]] {
  const read = accessFields(section, fail);
  const urls: string[] = read.has('rpc_url') ? [read.webUrl('rpc_url')] : [];
  if (read.has('rpc_urls')) {
    const list = read.value('rpc_urls');
    if (!Array.isArray(list) || list.length === 0) fail('rpc_urls', 'must be a non-empty array of http(s) URLs');
    list.forEach((url: unknown, index) => {
      const field = `rpc_urls[${index}]`;
      if (typeof url !== 'string' || !isWebUrl(url)) fail(field, 'must be an http(s) URL');
      if (urls.includes(url)) fail(field, 'repeats an earlier URL');
      urls.push(url);
    });
  }
  const [first, ...rest] = urls;
  // Unreachable: the caller asks only when rpc_url or rpc_urls is given, and rpc_urls is never empty.
  if (first === undefined) fail('rpc_url', 'missing');
  return Object.freeze([first, ...rest] as const);
}
