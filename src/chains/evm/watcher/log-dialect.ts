import { getAddress } from 'viem';
import type { ChainFamily } from '../../chain-network.js';
import type { EvmRpc, TransferReceipt } from './evm-rpc.js';

/**
 * What differs when the EVM watcher reads a chain that serves EVM JSON-RPC
 * logs but is not an EVM network: Tron's full node answers `eth_getLogs`,
 * `eth_blockNumber` and `eth_getBlockByNumber` at `/jsonrpc` with TVM hex
 * addresses, while its ledger spells addresses `T…`, its transaction ids are
 * bare hex, and its final blocks are the solidified ones, not a depth.
 */
export interface LogDialect {
  /** The family whose watched addresses the ledger is asked for. */
  readonly family: ChainFamily;
  /** Who speaks in the log ("tron watcher"). */
  readonly label: string;
  /** Sent with every JSON-RPC call (an API key). */
  readonly headers?: Readonly<Record<string, string>>;
  /** The newest confirmable block, when it is not head − depth (Tron: the solidified block − depth). */
  readonly confirmable?: (head: bigint) => Promise<bigint>;
  /** A watched address or token as the ledger spells it → as the logs carry it (lower-case 0x). */
  readonly logForm: (address: string) => string;
  /** A log's lower-case 0x address → the ledger's spelling. */
  readonly displayAddress: (address: string) => string;
  /** A log's transaction hash → the family's transaction id. */
  readonly txId: (hash: string) => string;
  /**
   * Where a transaction is now and its transfers, for the reorg check, when the
   * chain's node has no `eth_getTransactionReceipt` (Tron's /jsonrpc subset).
   */
  readonly transferReceipt?: (rpc: EvmRpc, txId: string) => Promise<TransferReceipt | null>;
}

export const evmLogDialect: LogDialect = {
  family: 'evm',
  label: 'evm watcher',
  logForm: (address) => address.toLowerCase(),
  displayAddress: getAddress,
  txId: (hash) => hash,
};
