import { createHash } from 'node:crypto';
import { getAddress } from 'viem';
import type { AddressRequest, ChainAdapter, PayoutBroadcast, PayoutRequest } from '../../src/chains/index.js';

/** A scripted answer to one `sendPayout` call: an outcome, or a thrown (temporary) error. */
export type ScriptedSend = PayoutBroadcast | { readonly kind: 'throw'; readonly message: string };

/**
 * A real, in-process `ChainAdapter` for a live EVM network, standing where the
 * EVM adapter (`chains/evm/`) stands in production, for tests of the generic
 * payout and allocation paths that need no chain node (the EVM adapter itself
 * is tested against anvil in `test/chain/`). It is a seam, not a mock of a
 * remote service: nothing remote is imitated, it simply is the adapter of the
 * test deployment. It honours the adapter contract of
 * `chains/chain-adapter.ts`: addresses are deterministic per issuance, and a
 * payout id already broadcast answers its first transaction again.
 *
 * It records every call and every new broadcast, answers `sendPayout` from a
 * script (then `broadcast` once the script is used up) and can hold a call at
 * a gate, so that tests can overlap workers or leave one stuck mid-send.
 */
export class RecordingChainAdapter implements ChainAdapter {
  readonly name = 'recording';
  readonly allocations: AddressRequest[] = [];
  readonly sends: PayoutRequest[] = [];
  /** Sweeps actually broadcast: at most one per payout id. */
  readonly broadcasts: { readonly payoutId: string; readonly txHash: string }[] = [];
  readonly #script: ScriptedSend[] = [];
  readonly #broadcast = new Map<string, string>();
  readonly #gates: Promise<void>[] = [];

  async allocateAddress(request: AddressRequest): Promise<string> {
    this.allocations.push(request);
    return getAddress(`0x${digest(`recording-address:${request.issuanceId}`).slice(0, 40)}`);
  }

  async sendPayout(request: PayoutRequest): Promise<PayoutBroadcast> {
    this.sends.push(request);
    const gate = this.#gates.shift();
    if (gate !== undefined) await gate;
    const already = this.#broadcast.get(request.payoutId);
    if (already !== undefined) return { kind: 'broadcast', txHash: already };
    const next = this.#script.shift() ?? { kind: 'broadcast', txHash: txHashFor(request.payoutId) };
    if (next.kind === 'throw') throw new Error(next.message);
    if (next.kind === 'broadcast') {
      this.#broadcast.set(request.payoutId, next.txHash);
      this.broadcasts.push({ payoutId: request.payoutId, txHash: next.txHash });
    }
    return next;
  }

  /** The answers of the next `sendPayout` calls, in order. */
  script(...answers: ScriptedSend[]): void {
    this.#script.push(...answers);
  }

  /** Holds the next `sendPayout` call (before it decides anything) until the returned release is called. */
  hold(): () => void {
    let release: () => void = () => undefined;
    this.#gates.push(new Promise<void>((resolve) => (release = resolve)));
    return release;
  }
}

/** The transaction hash this adapter broadcasts for a payout unless scripted otherwise. */
export function txHashFor(payoutId: string): string {
  return `0x${digest(`recording-tx:${payoutId}`)}`;
}

function digest(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
