import { accessFields, type AccessFail, type AccessParser, type AccessSection } from '../access-section.js';

/** The commitments Ivory reads Solana at (issue 24: observed at `confirmed`, credited at `finalized`). */
export type SolanaCommitment = 'confirmed' | 'finalized';

/**
 * How Ivory reaches a Solana network: a JSON-RPC 2.0 endpoint (issue 24
 * "Operator path"). Catalogue file only, never in an API answer.
 */
export interface SolanaAccess {
  readonly family: 'solana';
  readonly rpcUrl: string;
  /** The commitment at which a transfer is final for Ivory (transfer.confirmed). */
  readonly commitment: SolanaCommitment;
  /** The operator's fee wallet (base58); Solana has no factory to read it from. */
  readonly feeWallet: string | undefined;
  readonly pollIntervalMs: number;
}

const COMMITMENTS: readonly SolanaCommitment[] = ['confirmed', 'finalized'];
const DEFAULT_POLL_INTERVAL_MS = 1_000;
const TUNING = ['commitment', 'fee_wallet', 'poll_interval_ms'] as const;

/**
 * A Solana entry is live with `rpc_url` alone: each issuance's address is a
 * key derived from a seed, no factory is involved (ARCHITECTURE "Chains").
 */
export const solanaAccessParser: AccessParser<SolanaAccess> = {
  fields: ['rpc_url', ...TUNING],
  parse(section: AccessSection, fail: AccessFail): SolanaAccess | undefined {
    const read = accessFields(section, fail);
    if (!read.has('rpc_url')) {
      read.requireFor('rpc_url', TUNING);
      return undefined;
    }
    return Object.freeze({
      family: 'solana',
      rpcUrl: read.webUrl('rpc_url'),
      commitment: read.oneOf('commitment', COMMITMENTS, 'finalized'),
      feeWallet: read.address('fee_wallet'),
      pollIntervalMs: read.integer('poll_interval_ms', 50, 600_000, DEFAULT_POLL_INTERVAL_MS),
    });
  },
};
