import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { keccak256, toBytes } from 'viem';
import { formatAddress, hex, parseAddress } from './address.js';
import { TronChain, type Block, type ChainParameters } from './chain.js';
import { handleJsonRpc } from './json-rpc.js';
import { addressOfKey } from './signature.js';
import { walletRoutes, type WalletRequest } from './wallet-api.js';

/**
 * A small Tron full node for tests and the devnet: an EVM with the TVM's address rules under
 * java-tron's HTTP API and /jsonrpc. See README.md for what it does and does not model.
 */

export interface TronNodeOptions {
  /** Port to listen on, on 127.0.0.1; 0 (default) picks a free one. */
  port?: number;
  host?: string;
  /** Milliseconds between blocks (default 3000); 0 produces no blocks until `mineBlock`. */
  blockMs?: number;
  /** How many blocks the solidified head trails the head (default 2; java-tron mainnet is about 19). */
  solidLag?: number;
  /** eth_chainId (default 3448148188, Nile's). */
  chainId?: number;
  /** When set, every request must carry `TRON-PRO-API-KEY: <apiKey>` or is answered 401. */
  apiKey?: string;
  /** How long a transaction the node builds stays valid after the head block (default 60,000 ms, java-tron's). */
  expirationMs?: number;
  /** eth_getLogs' widest range (default 5000, java-tron's). */
  maxBlockRange?: number;
  /** How many pre-funded accounts (default 4), each with `accountBalance` sun (default 1,000,000 TRX). */
  accounts?: number;
  accountBalance?: bigint;
  /** getEnergyFee (420), getTransactionFee (1000), getMaxFeeLimit (15,000 TRX), getFreeNetLimit (600). */
  parameters?: Partial<ChainParameters>;
}

export interface TronNodeAccount {
  /** Base58check `T…`. */
  address: string;
  /** `41…` hex. */
  hexAddress: string;
  /** 64 hex digits, no 0x. */
  privateKey: string;
}

export interface SeenRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
}

/** Rewrites an answer before it is sent: for tests of a lying node. Return undefined to keep it. */
export type AnswerInterceptor = (path: string, request: unknown, answer: unknown) => unknown;

export interface TronNode {
  /** Base URL for tronweb's fullHost and Ivory's api_url, e.g. http://127.0.0.1:41234. */
  readonly url: string;
  readonly chainId: number;
  readonly accounts: TronNodeAccount[];
  /** Every request received, oldest first (the last 1,000), so a test can check the headers a client sends. */
  readonly requests: SeenRequest[];
  headNumber(): number;
  solidNumber(): number;
  /** Credits `sun` to an address (`T…` or hex) in the head block's state. */
  fund(address: string, sun: bigint): Promise<void>;
  /** Gives an address energy as if staked: used before TRX is burnt, recovers over 24 h of block time. */
  grantEnergy(address: string, energy: number): Promise<void>;
  /** Produces one block now, executing the pool; works while paused. */
  mineBlock(): Promise<{ number: number; blockID: string }>;
  /** Stops and restarts the block timer. */
  pause(): void;
  resume(): void;
  /**
   * Drops the blocks above `blockNumber`, reverting their state; throws when that would drop a
   * solidified block. Their transactions are dropped, or returned to the pool with `requeue`.
   */
  rollback(blockNumber: number, options?: { requeue?: boolean }): Promise<void>;
  /** Installs (or, without an argument, removes) an interceptor of every 200 answer. */
  intercept(interceptor?: AnswerInterceptor): void;
  close(): Promise<void>;
}

const DEFAULT_PARAMETERS: ChainParameters = { energyFee: 420n, transactionFee: 1000n, maxFeeLimit: 15_000_000_000n, freeNetLimit: 600 };

/** The n-th pre-funded account's key: the same on every start, so a devnet's accounts are stable. */
function accountKey(index: number): Uint8Array {
  return keccak256(toBytes(`ivory tron devnet account ${index}`), 'bytes');
}

export async function startTronNode(options: TronNodeOptions = {}): Promise<TronNode> {
  const chainId = options.chainId ?? 3_448_148_188;
  const blockMs = options.blockMs ?? 3000;
  const keys = Array.from({ length: options.accounts ?? 4 }, (_, index) => accountKey(index));
  const chain = await TronChain.create({
    solidLag: options.solidLag ?? 2,
    parameters: { ...DEFAULT_PARAMETERS, ...options.parameters },
    genesis: keys.map((key) => ({ address: addressOfKey(key), balance: options.accountBalance ?? 1_000_000_000_000n })),
    witnessKey: keccak256(toBytes('ivory tron devnet witness'), 'bytes'),
    now: () => Date.now(),
  });
  const routes = walletRoutes(chain, options.expirationMs ?? 60_000);
  const rpcOptions = { chainId, maxBlockRange: options.maxBlockRange ?? 5000 };
  const requests: SeenRequest[] = [];
  let interceptor: AnswerInterceptor | undefined;

  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      answer(request, text)
        .then(({ status, body }) => {
          const path = new URL(request.url ?? '/', 'http://node').pathname;
          const sent = status === 200 && interceptor !== undefined ? (interceptor(path, parseOrText(text), body) ?? body) : body;
          response.writeHead(status, { 'content-type': 'application/json' });
          response.end(JSON.stringify(sent));
        })
        .catch((error: unknown) => {
          console.error('tron node: request failed', error);
          response.writeHead(500, { 'content-type': 'application/json' });
          response.end(JSON.stringify({ Error: String(error) }));
        });
    });
  });

  async function answer(request: http.IncomingMessage, text: string): Promise<{ status: number; body: unknown }> {
    const url = new URL(request.url ?? '/', 'http://node');
    requests.push({ method: request.method ?? 'GET', path: url.pathname, headers: request.headers });
    if (requests.length > 1000) requests.shift();
    if (options.apiKey !== undefined && request.headers['tron-pro-api-key'] !== options.apiKey) {
      return { status: 401, body: { Error: 'ApiKey not exists or wrong' } };
    }
    let body: unknown = {};
    try {
      body = text.trim() === '' ? Object.fromEntries(url.searchParams) : JSON.parse(text);
    } catch (error) {
      return { status: 200, body: { Error: `class com.alibaba.fastjson.JSONException : ${(error as Error).message}` } };
    }
    if (url.pathname === '/jsonrpc') return { status: 200, body: await handleJsonRpc(chain, rpcOptions, body) };
    const route = routes.get(url.pathname.replace(/\/$/, ''));
    if (route === undefined) return { status: 404, body: { Error: `no such endpoint ${url.pathname}` } };
    const fields = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
    const walletRequest: WalletRequest = { body: fields, visible: fields.visible === true || fields.visible === 'true' };
    try {
      return { status: 200, body: await route(walletRequest) };
    } catch (error) {
      return { status: 200, body: { Error: `class java.lang.IllegalArgumentException : ${(error as Error).message}` } };
    }
  }

  await new Promise<void>((resolve) => server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  const produce = (): void => {
    chain.mineBlock().catch((error: unknown) => console.error('tron node: block production failed', error));
  };
  const resume = (): void => {
    if (timer === undefined && blockMs > 0 && !closed) timer = setInterval(produce, blockMs);
  };
  const pause = (): void => {
    if (timer !== undefined) clearInterval(timer);
    timer = undefined;
  };
  resume();

  const vmAddress = (address: string): Uint8Array => {
    const parsed = parseAddress(address);
    if (parsed === undefined) throw new Error(`not a Tron address: ${address}`);
    return parsed;
  };

  return {
    url: `http://${options.host ?? '127.0.0.1'}:${port}`,
    chainId,
    accounts: keys.map((key) => ({ address: formatAddress(addressOfKey(key), true), hexAddress: formatAddress(addressOfKey(key), false), privateKey: hex(key) })),
    requests,
    headNumber: () => chain.head().header.number,
    solidNumber: () => chain.solidNumber,
    fund: (address, sun) => chain.fund(vmAddress(address), sun),
    grantEnergy: (address, energy) => chain.grantEnergy(vmAddress(address), energy),
    mineBlock: async () => {
      const block: Block = await chain.mineBlock();
      return { number: block.header.number, blockID: block.idHex };
    },
    pause,
    resume,
    rollback: (blockNumber, rollbackOptions) => chain.rollback(blockNumber, rollbackOptions?.requeue === true),
    intercept: (next) => {
      interceptor = next;
    },
    close: async () => {
      closed = true;
      pause();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function parseOrText(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
