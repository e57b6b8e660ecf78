import { accessFields, type AccessFail, type AccessParser, type AccessSection } from '../access-section.js';

/**
 * How Ivory reaches a Tron network: a java-tron full node's HTTP API (issue 23
 * "Operator path"). Catalogue file only, never in an API answer: the URL and
 * the API key are the operator's secrets.
 */
export interface TronAccess {
  readonly family: 'tron';
  /** The full node's HTTP API (`/wallet/…`, `/walletsolidity/…`, `/jsonrpc`). */
  readonly apiUrl: string;
  /** Sent as the `TRON-PRO-API-KEY` header when set (TronGrid and similar providers). */
  readonly apiKey: string | undefined;
  /**
   * Blocks below the solidified head before transfer.confirmed; 0 means at
   * solidification, which is already final on Tron.
   */
  readonly confirmations: number;
  /**
   * The most TRX, in sun, one sweep may burn for energy: the ceiling on the
   * `fee_limit` the payout sets from its energy estimate and margin, so that a
   * mistaken estimate cannot drain the relayer.
   */
  readonly feeLimitSun: number;
  /** The operator's fee wallet (`T…`); when absent it is read from the factory. */
  readonly feeWallet: string | undefined;
  readonly pollIntervalMs: number;
  readonly maxBlockRange: number;
}

const MAX_CONFIRMATIONS = 10_000;
/** 100 TRX: several times what a forwarder sweep burns at today's energy price, far from a drained relayer. */
const DEFAULT_FEE_LIMIT_SUN = 100_000_000;
/** The network's own ceiling on a transaction's fee_limit (15,000 TRX). */
const MAX_FEE_LIMIT_SUN = 15_000_000_000;
/** Tron makes a block every 3 s; a poll each second finds a solidified transfer within about a second of solidification. */
const DEFAULT_POLL_INTERVAL_MS = 1_000;
const DEFAULT_MAX_BLOCK_RANGE = 2_000;
const TUNING = ['api_key', 'confirmations', 'fee_limit', 'fee_wallet', 'poll_interval_ms', 'max_block_range'] as const;

/** A Tron entry is live with `api_url` and both factories (its payment addresses are CREATE2 forwarders, as on EVM). */
export const tronAccessParser: AccessParser<TronAccess> = {
  fields: ['api_url', ...TUNING],
  parse(section: AccessSection, fail: AccessFail): TronAccess | undefined {
    const read = accessFields(section, fail);
    if (!read.has('api_url')) {
      read.requireFor('api_url', TUNING);
      return undefined;
    }
    const apiUrl = read.webUrl('api_url');
    read.requireFactories('api_url');
    return Object.freeze({
      family: 'tron',
      apiUrl,
      apiKey: read.has('api_key') ? read.nonEmptyString('api_key') : undefined,
      confirmations: read.integer('confirmations', 0, MAX_CONFIRMATIONS, 0),
      feeLimitSun: read.integer('fee_limit', 1, MAX_FEE_LIMIT_SUN, DEFAULT_FEE_LIMIT_SUN),
      feeWallet: read.address('fee_wallet'),
      pollIntervalMs: read.integer('poll_interval_ms', 50, 600_000, DEFAULT_POLL_INTERVAL_MS),
      maxBlockRange: read.integer('max_block_range', 1, 1_000_000, DEFAULT_MAX_BLOCK_RANGE),
    });
  },
};
