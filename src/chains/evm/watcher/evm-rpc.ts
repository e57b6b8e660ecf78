import { numberToHex, type Hex } from 'viem';
import { jsonRpcOver } from './json-rpc.js';

/** keccak256("Transfer(address,address,uint256)"): the ERC-20 (and ERC-721) Transfer topic. */
export const TRANSFER_TOPIC: Hex = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';

/** One ERC-20 `Transfer` log, addresses lower-case. */
export interface TransferLog {
  readonly blockNumber: bigint;
  readonly blockHash: string;
  readonly txHash: string;
  readonly logIndex: number;
  readonly token: string;
  readonly from: string;
  readonly to: string;
  readonly amount: bigint;
}

/** A mined transaction's block and its ERC-20 transfers, as the node sees it now. */
export interface TransferReceipt {
  readonly blockNumber: bigint;
  readonly blockHash: string;
  readonly logs: readonly TransferLog[];
}

/**
 * The few JSON-RPC calls the watcher makes. Every call is bounded by a timeout
 * and never retried here: the watcher retries a whole pass with backoff, from
 * its persisted cursor, so nothing is skipped and nothing is held meanwhile.
 */
export interface EvmRpc {
  headBlock(): Promise<bigint>;
  /** The `finalized` tag's block number (networks with finality). */
  finalizedBlock(): Promise<bigint>;
  /** The canonical hash at `number`, or null when the chain is not that long (any more). */
  blockHash(number: bigint): Promise<string | null>;
  /** `Transfer` logs emitted by `tokens` in blocks `from..to` inclusive. */
  transferLogs(tokens: readonly string[], from: bigint, to: bigint): Promise<TransferLog[]>;
  /** Null when the transaction is not in the canonical chain. */
  transferReceipt(txHash: string): Promise<TransferReceipt | null>;
  /**
   * Several endpoints only (`failover-rpc.ts`): asked before a rewind. When
   * another endpoint still has the stored `hash` at `number`, the answering one
   * is on its own fork: it is distrusted and this throws, abandoning the pass
   * without rewinding. Resolves when no other endpoint disputes the reorg.
   */
  confirmReorg?(number: bigint, hash: string): Promise<void>;
}

interface RawLog {
  readonly address: string;
  readonly topics: readonly string[];
  readonly data: string;
  readonly blockNumber: string | null;
  readonly blockHash: string | null;
  readonly transactionHash: string | null;
  readonly logIndex: string | null;
  readonly removed?: boolean;
}

export interface EvmRpcOptions {
  readonly timeoutMs: number;
  /** Largest answer read; a larger `eth_getLogs` answer makes the watcher ask for fewer blocks. */
  readonly maxResponseBytes: number;
  readonly headers?: Readonly<Record<string, string>>;
}

export function createEvmRpc(rpcUrl: string, options: EvmRpcOptions): EvmRpc {
  // Raw requests: no caching, and no decoding of thousands of logs through an ABI.
  const call = jsonRpcOver(rpcUrl, options);
  const block = async (tag: Hex | 'finalized') => (await call('eth_getBlockByNumber', [tag, false])) as { number: Hex; hash: Hex } | null;

  return {
    async headBlock() {
      return BigInt((await call('eth_blockNumber')) as Hex);
    },
    async finalizedBlock() {
      const finalized = await block('finalized');
      if (finalized === null) throw new Error('the node has no finalized block');
      return BigInt(finalized.number);
    },
    async blockHash(number) {
      return (await block(numberToHex(number)))?.hash.toLowerCase() ?? null;
    },
    async transferLogs(tokens, from, to) {
      const logs = (await call('eth_getLogs', [
        { address: tokens, topics: [TRANSFER_TOPIC], fromBlock: numberToHex(from), toBlock: numberToHex(to) },
      ])) as RawLog[];
      return decodeTransferLogs(logs);
    },
    async transferReceipt(txHash) {
      const receipt = (await call('eth_getTransactionReceipt', [txHash])) as
        | { blockNumber: Hex | null; blockHash: Hex | null; logs: RawLog[] }
        | null;
      if (receipt === null || receipt.blockNumber === null || receipt.blockHash === null) return null;
      return {
        blockNumber: BigInt(receipt.blockNumber),
        blockHash: receipt.blockHash.toLowerCase(),
        logs: decodeTransferLogs(receipt.logs.filter((log) => log.topics[0]?.toLowerCase() === TRANSFER_TOPIC)),
      };
    },
  };
}

/**
 * ERC-20 `Transfer(address indexed, address indexed, uint256)` only: three
 * topics and a 32-byte word. ERC-721 transfers (four topics) and pending or
 * removed logs are left out.
 */
export function decodeTransferLogs(logs: readonly RawLog[]): TransferLog[] {
  const decoded: TransferLog[] = [];
  for (const log of logs) {
    if (log.removed === true || log.topics.length !== 3 || log.data.length !== 66) continue;
    if (log.blockNumber === null || log.blockHash === null || log.transactionHash === null || log.logIndex === null) continue;
    decoded.push({
      blockNumber: BigInt(log.blockNumber),
      blockHash: log.blockHash.toLowerCase(),
      txHash: log.transactionHash.toLowerCase(),
      logIndex: Number(BigInt(log.logIndex)),
      token: log.address.toLowerCase(),
      from: topicAddress(log.topics[1] as string),
      to: topicAddress(log.topics[2] as string),
      amount: BigInt(log.data),
    });
  }
  return decoded;
}

function topicAddress(topic: string): string {
  return `0x${topic.slice(-40).toLowerCase()}`;
}

/**
 * Providers refuse wide `eth_getLogs` queries in many dialects: Alchemy's
 * "query returned more than 10000 results", Infura's -32005, "block range is
 * too large", "exceed maximum block range", HTTP 413 — and an answer larger
 * than this client reads (`RpcAnswerTooLarge`, status 413). Any of them
 * means: ask for fewer blocks.
 */
const RANGE_LIMIT_PATTERN =
  /query returned more than|block range|range (is )?too (large|wide|big)|exceeds? (the )?max(imum)?|too many (results|logs|blocks)|limit exceeded|response size|payload too large|request entity too large/i;

export function isRangeLimitError(error: unknown): boolean {
  for (let current: unknown = error, depth = 0; current !== undefined && current !== null && depth < 8; depth += 1) {
    const candidate = current as { code?: unknown; status?: unknown; message?: unknown; details?: unknown; cause?: unknown };
    if (candidate.code === -32005 || candidate.status === 413) return true;
    if (typeof candidate.details === 'string' && RANGE_LIMIT_PATTERN.test(candidate.details)) return true;
    if (typeof candidate.message === 'string' && RANGE_LIMIT_PATTERN.test(candidate.message)) return true;
    current = candidate.cause;
  }
  return false;
}
