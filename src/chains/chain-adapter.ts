import type { ErrorCode } from '../platform/errors.js';
import type { ChainFamily } from './chain-network.js';

/** What an adapter needs to know about an issuance to give it a payment address. */
export interface AddressRequest {
  readonly issuanceId: string;
  readonly chainId: number;
  readonly family: ChainFamily;
  readonly kind: 'invoice' | 'deposit';
  readonly token: string;
  /*
   * What a live EVM address commits to (ARCHITECTURE "Chains": the CREATE2
   * salt fixes the split). The allocation job (`allocation/allocate-addresses.job.ts`)
   * passes them for every issuance; they are optional because only a family
   * whose address commits to terms needs them: the EVM adapter refuses a
   * request without them, the sandbox adapter ignores them.
   */
  /** The shop's recipient on this network: where `amount − fee` goes. */
  readonly recipient?: string;
  /** The shop's delegate, allowed to sweep without Ivory; null when none. */
  readonly delegate?: string | null;
  /**
   * Token base units. Invoices: the amount. Deposits: the minimum sweep (the
   * catalogue's `minimum_sweep` in base units; null or 0 allows any balance).
   */
  readonly amount?: bigint | null;
  readonly tokenDecimals?: number;
  /** Fee terms as stored on the issuance: basis points, and bounds in 18-decimal units (LEDGER "Fees"). */
  readonly feeBps?: number;
  readonly feeMinimum?: bigint;
  readonly feeMaximum?: bigint;
}

/**
 * One sweep of a payment address, as the payout worker asks for it. Amounts
 * are token base units; `toRecipient + toOperator` is the whole swept sum
 * (LEDGER "Invoices"/"Deposits"). The operator's own address is the adapter's
 * configuration, not the request's.
 */
export interface PayoutRequest {
  /** Stable for the payout's whole life: the key an adapter makes its sends idempotent by. */
  readonly payoutId: string;
  /** The issuance whose address is swept (what `allocateAddress` was asked for). */
  readonly issuanceId: string;
  readonly chainId: number;
  readonly family: ChainFamily;
  readonly token: string;
  readonly tokenDecimals: number;
  /** The issuance's payment address: the funds leave from here. */
  readonly fromAddress: string;
  readonly recipient: string;
  readonly toRecipient: bigint;
  readonly toOperator: bigint;
}

/**
 * What a send attempt came to. A temporary RPC failure is none of these: the
 * adapter throws, and the worker retries later with a growing back-off (SPEC
 * "Events": a temporary RPC or gas delay is not payout.failed).
 */
export type PayoutBroadcast =
  /** The sweep is on its way; the chain watcher confirms it later. */
  | { readonly kind: 'broadcast'; readonly txHash: string }
  /** The address lacks network fee funds (the internal signal `gas.wait`): asked again later. */
  | { readonly kind: 'waiting_gas' }
  /** Terminal: the sweep cannot be made without an operator (payout.failed). `reason` is for operators only. */
  | { readonly kind: 'failed'; readonly reason: string };

/**
 * One blockchain family behind one interface (ARCHITECTURE "Modules": `chains/`).
 * Workers call it outside any database transaction (ARCHITECTURE: never hold
 * a transaction across a network call), so an implementation may talk to a node.
 *
 * Declared here is what generic code asks of an adapter: an address, and a
 * sweep. What a family sees on chain does not come back through this
 * interface: each live family runs its own jobs per network, which report to
 * the ledger through the ports of `ledger-ports.ts`. EVM's (`evm/`) watcher (`evm/watcher/evm-watcher.job.ts`) hands incoming transfers,
 * keyed by (chain, tx hash, log index), to the issuances ledger's
 * `recordTransfers`, and reorged ones come back through it as reversals; its
 * payout tracker (`evm/payouts/evm-payout-tracker.job.ts`) reports sweeps seen
 * on chain to `confirmPayout` / `revertPayout` / `sweepFailed`. Tron
 * (`tron/`) reuses the EVM watcher over its node's /jsonrpc and has its own
 * payout tracker. Solana (`solana/`) watches each deposit token account by
 * signature and has its own tracker; its allocation may answer `AddressPending`.
 *
 * The sandbox adapter implements only `allocateAddress`: sandbox money does
 * not move (LEDGER "Sandbox"), so no sandbox payout is ever sent.
 */
/**
 * The address is known but not usable yet (Solana: the token account's
 * creation was sent and has not reached `confirmed`): the issuance stays
 * `registering` and is asked again after `retryInMs`, without the growing
 * back-off of a failure, so that one slow chain never holds the allocation
 * job for other issuances.
 */
export interface AddressPending {
  readonly pending: true;
  readonly retryInMs: number;
}

export interface ChainAdapter {
  readonly name: string;
  /**
   * Idempotent per issuance: asked twice for the same issuance (a worker
   * crashed after asking), it answers the same address, or that it is still
   * pending. Must not wait on the chain: answer `AddressPending` instead.
   */
  allocateAddress(request: AddressRequest): Promise<string | AddressPending>;
  /**
   * Broadcasts the sweep of `request.fromAddress`. Contract with the payout
   * worker (`payouts/send-payouts.job.ts`):
   * - It may be called again for the same `payoutId`: after a throw, or when a
   *   worker died mid-call and its lease ran out (the call's result was never
   *   recorded). An adapter must then not send a second sweep: if it already
   *   broadcast one for that payout id, it answers that transaction's hash.
   *   (Nonce-per-address chains get this nearly for free; others must keep a
   *   record keyed by the payout id.)
   * - Throw only for temporary trouble (RPC down, timeout) and only when a
   *   later call with the same payout id will find out what happened to this
   *   one; twenty throws in a row make the payout `failed`.
   * - Answer within the worker's lease (minutes): bound every RPC call with a timeout.
   * - Amounts may differ between calls for one payout id while nothing was
   *   broadcast (an overpayment joined the sweep); once broadcast, the
   *   broadcast transaction is the truth and the chain watcher confirms it.
   * - EVM makes a second signature harmless with the nonce: it replaces the
   *   first. A family whose transactions expire instead (Tron, Solana) stores
   *   each signed transaction with its expiry before broadcasting it, and signs
   *   anew only as `nextExpiringPayoutStep` (expiring-payout.ts) allows: when
   *   every earlier one is proven unable to land.
   */
  sendPayout?(request: PayoutRequest): Promise<PayoutBroadcast>;
  /**
   * Optional: the sweeps of several payouts due in the same pass, which a
   * family may send together (EVM: `sweepBatch`, docs/decisions/0037). One
   * outcome per request, in order; each has the meaning of `sendPayout`'s
   * answer for that request (a rejection is its throw), under the same
   * contract: asked again for a payout id, the adapter finds what it sent.
   */
  sendPayouts?(requests: readonly PayoutRequest[]): Promise<PromiseSettledResult<PayoutBroadcast>[]>;
  /**
   * What the chain says against paying `recipient` in `token` (Solana: the
   * recipient holds no token account for the mint,
   * `solana_recipient_token_account_required`); undefined when nothing, or
   * when the node cannot tell now (the sweep then finds out). Asked before
   * an issuance is created, outside any transaction.
   */
  recipientProblem?(recipient: string, token: string): Promise<ErrorCode | undefined>;
}

/** Finds the adapter serving a network, for sandbox or live issuances. */
export interface ChainAdapters {
  /** undefined: no adapter configured for that network (`network_not_ready`). */
  adapterFor(sandbox: boolean, chainId: number, family: ChainFamily): ChainAdapter | undefined;
}
