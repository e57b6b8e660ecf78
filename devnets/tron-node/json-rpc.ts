import { hex } from './address.js';
import type { Block, TronChain } from './chain.js';

type Json = Record<string, unknown>;

export interface JsonRpcOptions {
  chainId: number;
  /** The widest eth_getLogs range, java-tron's `node.jsonrpc.maxBlockRange` (default 5000). */
  maxBlockRange: number;
}

class JsonRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** java-tron's /jsonrpc, the four methods Ivory uses; answers one request or a batch. */
export async function handleJsonRpc(chain: TronChain, options: JsonRpcOptions, payload: unknown): Promise<unknown> {
  if (Array.isArray(payload)) return Promise.all(payload.map((request) => handleOne(chain, options, request)));
  return handleOne(chain, options, payload);
}

async function handleOne(chain: TronChain, options: JsonRpcOptions, payload: unknown): Promise<Json> {
  const request = (typeof payload === 'object' && payload !== null ? payload : {}) as Json;
  const id = request.id ?? null;
  try {
    const params = Array.isArray(request.params) ? request.params : [];
    return { jsonrpc: '2.0', id, result: call(chain, options, String(request.method), params) };
  } catch (error) {
    const code = error instanceof JsonRpcError ? error.code : -32000;
    const message = error instanceof Error ? error.message : String(error);
    return { jsonrpc: '2.0', id, error: { code, message, data: '{}' } };
  }
}

function call(chain: TronChain, options: JsonRpcOptions, method: string, params: unknown[]): unknown {
  switch (method) {
    case 'eth_chainId':
      return quantity(options.chainId);
    case 'net_version':
      return String(options.chainId);
    case 'eth_blockNumber':
      return quantity(chain.head().header.number);
    case 'eth_getBlockByNumber': {
      const block = chain.blocks[blockNumber(chain, params[0])];
      return block === undefined ? null : blockJson(block, params[1] === true);
    }
    case 'eth_getBlockByHash': {
      const wanted = String(params[0] ?? '').replace(/^0x/, '').toLowerCase();
      const block = chain.blocks.find((candidate) => candidate.idHex === wanted);
      return block === undefined ? null : blockJson(block, params[1] === true);
    }
    case 'eth_getLogs':
      return logs(chain, options, (params[0] ?? {}) as Json);
    default:
      throw new JsonRpcError(-32601, `the method ${method} does not exist/is not available`);
  }
}

function quantity(value: number | bigint): string {
  return `0x${value.toString(16)}`;
}

function blockNumber(chain: TronChain, tag: unknown): number {
  if (tag === undefined || tag === 'latest' || tag === 'pending') return chain.head().header.number;
  if (tag === 'earliest') return 0;
  if (tag === 'finalized' || tag === 'safe') return chain.solidNumber;
  if (typeof tag === 'string' && /^0x[0-9a-fA-F]+$/.test(tag)) return Number.parseInt(tag.slice(2), 16);
  throw new JsonRpcError(-32602, 'invalid block number');
}

function blockJson(block: Block, fullTransactions: boolean): Json {
  const hash = `0x${block.idHex}`;
  return {
    number: quantity(block.header.number),
    hash,
    parentHash: `0x${hex(block.header.parentHash)}`,
    nonce: '0x0000000000000000',
    sha3Uncles: '0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347',
    logsBloom: `0x${'00'.repeat(256)}`,
    transactionsRoot: `0x${hex(block.header.txTrieRoot)}`,
    stateRoot: `0x${hex(block.stateRoot)}`,
    receiptsRoot: `0x${'00'.repeat(32)}`,
    miner: `0x${hex(block.header.witnessAddress)}`,
    difficulty: '0x0',
    totalDifficulty: '0x0',
    extraData: '0x',
    size: quantity(0),
    gasLimit: quantity(0),
    gasUsed: quantity(block.infos.reduce((sum, info) => sum + info.receipt.energyUsageTotal, 0)),
    // java-tron's JSON-RPC timestamp is in seconds, like Ethereum's.
    timestamp: quantity(Math.floor(block.header.timestamp / 1000)),
    transactions: block.infos.map((info, index) =>
      fullTransactions
        ? {
            blockHash: hash,
            blockNumber: quantity(block.header.number),
            from: `0x${hex(info.transaction.raw.contract.owner)}`,
            hash: `0x${info.transaction.idHex}`,
            transactionIndex: quantity(index),
          }
        : `0x${info.transaction.idHex}`,
    ),
    uncles: [],
  };
}

function logs(chain: TronChain, options: JsonRpcOptions, filter: Json): Json[] {
  let from: number;
  let to: number;
  if (typeof filter.blockHash === 'string') {
    const wanted = filter.blockHash.replace(/^0x/, '').toLowerCase();
    const block = chain.blocks.find((candidate) => candidate.idHex === wanted);
    if (block === undefined) return [];
    from = to = block.header.number;
  } else {
    from = blockNumber(chain, filter.fromBlock);
    to = blockNumber(chain, filter.toBlock);
  }
  if (from > to) throw new JsonRpcError(-32602, 'please verify: fromBlock <= toBlock');
  if (to - from > options.maxBlockRange) throw new JsonRpcError(-32005, `exceed max block range: ${options.maxBlockRange}`);
  const addresses = (Array.isArray(filter.address) ? filter.address : filter.address === undefined || filter.address === null ? [] : [filter.address]).map((address) =>
    String(address).replace(/^0x/, '').toLowerCase().slice(-40),
  );
  const topicFilters = (Array.isArray(filter.topics) ? filter.topics : []).map((topic) =>
    topic === null || topic === undefined ? undefined : (Array.isArray(topic) ? topic : [topic]).map((value) => String(value).replace(/^0x/, '').toLowerCase()),
  );
  const found: Json[] = [];
  for (let number = from; number <= Math.min(to, chain.head().header.number); number++) {
    const block = chain.blocks[number] as Block;
    let logIndex = 0;
    block.infos.forEach((info, transactionIndex) => {
      for (const log of info.logs) {
        const index = logIndex++;
        if (addresses.length > 0 && !addresses.includes(hex(log.address))) continue;
        const topics = log.topics.map(hex);
        if (!topicFilters.every((wanted, position) => wanted === undefined || (topics[position] !== undefined && wanted.includes(topics[position] as string)))) continue;
        found.push({
          address: `0x${hex(log.address)}`,
          blockHash: `0x${block.idHex}`,
          blockNumber: quantity(number),
          data: `0x${hex(log.data)}`,
          logIndex: quantity(index),
          removed: false,
          topics: topics.map((topic) => `0x${topic}`),
          transactionHash: `0x${info.transaction.idHex}`,
          transactionIndex: quantity(transactionIndex),
        });
      }
    });
  }
  return found;
}
