// The ledger behind the local Solana node: litesvm executes, this file keeps what a validator's
// RPC answers from: slots on a timer, one blockhash per slot with a last valid block height, the
// landed transactions with their metas, a signature index per address, and per-slot snapshots
// for dropping a transaction that is not finalized yet.
//
// Rollback: before the first transaction of a slot lands, the whole litesvm state is saved
// (`toBytes`, about 1.4 MB, 1 ms). Dropping a transaction restores the snapshot of its slot and
// re-executes, in their original order and slots, every later transaction but the dropped one;
// one that can no longer be charged (its fee payer was funded by the dropped one) is dropped too,
// one that now fails lands with its error. Snapshots of finalized slots are discarded.
//
// Block height equals slot (no skipped slots). Account reads at `confirmed` or `finalized` undo
// the writes of later transactions with the pre-states each transaction recorded.

import { createHash, randomBytes } from 'node:crypto';
import {
  getBase58Decoder,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  type Address,
  type Lamports,
  type Transaction,
} from '@solana/kit';
import { FailedTransactionMetadata, LiteSVM, type TransactionMetadata } from 'litesvm';
import { readMint, readTokenAccount } from './token-layout.js';
import { landsWith, toSolanaError, type SolanaTransactionError } from './transaction-errors.js';

export type Commitment = 'processed' | 'confirmed' | 'finalized';

export interface ChainOptions {
  slotMs: number;
  confirmedLag: number;
  finalizedLag: number;
  /** Blocks a blockhash stays valid after its own (150 on mainnet). */
  blockhashValidity: number;
}

export interface AccountState {
  lamports: bigint;
  data: Uint8Array;
  owner: string;
  executable: boolean;
}

export interface TokenBalance {
  accountIndex: number;
  mint: string;
  owner: string;
  programId: string;
  amount: bigint;
  decimals: number;
}

export interface CompiledInstructionRecord {
  programIdIndex: number;
  accounts: number[];
  data: Uint8Array;
  stackHeight: number | null;
}

export interface LandedTransaction {
  signature: string;
  signatures: string[];
  version: 'legacy' | 0;
  header: { numRequiredSignatures: number; numReadonlySignedAccounts: number; numReadonlyUnsignedAccounts: number };
  accountKeys: string[];
  writable: boolean[];
  signer: boolean[];
  recentBlockhash: string;
  instructions: CompiledInstructionRecord[];
  wire: Uint8Array;
  slot: bigint;
  blockTime: number;
  err: SolanaTransactionError | null;
  fee: bigint;
  preBalances: bigint[];
  postBalances: bigint[];
  preTokenBalances: TokenBalance[];
  postTokenBalances: TokenBalance[];
  innerInstructions: { index: number; instructions: CompiledInstructionRecord[] }[];
  logMessages: string[];
  computeUnitsConsumed: bigint;
  /** Writable accounts as they were before this transaction (null: did not exist). */
  preStates: Map<string, AccountState | null>;
}

export interface DecodedTransaction {
  transaction: Transaction;
  signature: string;
  signatures: (string | null)[];
  version: 'legacy' | 0;
  header: LandedTransaction['header'];
  accountKeys: string[];
  writable: boolean[];
  signer: boolean[];
  recentBlockhash: string;
  instructions: CompiledInstructionRecord[];
}

export type SendOutcome =
  | { kind: 'landed'; transaction: LandedTransaction }
  /** Not charged, never lands (skipPreflight): the RPC still answers the signature. */
  | { kind: 'dropped'; signature: string; error: SolanaTransactionError }
  /** The preflight simulation failed: nothing was sent. */
  | { kind: 'refused'; error: SolanaTransactionError; logs: string[]; unitsConsumed: bigint };

export type DropOutcome =
  | { dropped: true; signature: string; replayed: string[]; lost: string[] }
  | { dropped: false; reason: 'unknown' | 'finalized' };

const SYSTEM_PROGRAM = '11111111111111111111111111111111' as Address;

export class Chain {
  private svm: LiteSVM;
  private slotNow: bigint;
  private slotTime: number;
  private readonly seed = randomBytes(16);
  private readonly blockhashSlots = new Map<string, bigint>();
  private landed: LandedTransaction[] = [];
  private readonly bySignature = new Map<string, LandedTransaction>();
  private byAddress = new Map<string, LandedTransaction[]>();
  private readonly slotSnapshots = new Map<bigint, Uint8Array>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: ChainOptions) {
    this.svm = Chain.configure(new LiteSVM());
    // Start past the finalized lag so that every commitment names a real slot from the first answer.
    this.slotNow = BigInt(options.finalizedLag) + 1n;
    this.slotTime = Math.floor(Date.now() / 1000);
    for (let slot = 0n; slot <= this.slotNow; slot += 1n) this.blockhashSlots.set(this.blockhashOf(slot), slot);
    this.syncClock();
  }

  private static configure(svm: LiteSVM): LiteSVM {
    // Blockhash validity is this file's (a window of slots); litesvm only knows its latest one.
    return svm.withSigverify(true).withBlockhashCheck(false);
  }

  /** Funds an address outside any transaction (genesis). */
  fundAtGenesis(address: Address, lamports: bigint): void {
    this.svm.setAccount({ address, lamports: lamports as Lamports, data: new Uint8Array(), executable: false, programAddress: SYSTEM_PROGRAM, space: 0n });
  }

  get slot(): bigint {
    return this.slotNow;
  }

  commitmentSlot(commitment: Commitment): bigint {
    const lag = commitment === 'processed' ? 0 : commitment === 'confirmed' ? this.options.confirmedLag : this.options.finalizedLag;
    const slot = this.slotNow - BigInt(lag);
    return slot < 0n ? 0n : slot;
  }

  commitmentOf(slot: bigint): Commitment {
    if (slot <= this.commitmentSlot('finalized')) return 'finalized';
    if (slot <= this.commitmentSlot('confirmed')) return 'confirmed';
    return 'processed';
  }

  blockhashOf(slot: bigint): string {
    const digest = createHash('sha256').update(this.seed).update(slot.toString()).digest();
    return getBase58Decoder().decode(digest);
  }

  lastValidBlockHeight(slot: bigint): bigint {
    return slot + BigInt(this.options.blockhashValidity);
  }

  /** Whether a transaction naming `blockhash` may still land now. */
  isBlockhashValid(blockhash: string): boolean {
    const slot = this.blockhashSlots.get(blockhash);
    return slot !== undefined && this.slotNow <= this.lastValidBlockHeight(slot);
  }

  minimumBalanceForRentExemption(size: bigint): bigint {
    return this.svm.minimumBalanceForRentExemption(size);
  }

  start(): void {
    if (this.timer !== undefined) return;
    this.timer = setInterval(() => this.advance(1), this.options.slotMs);
    this.timer.unref();
  }

  pause(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  advance(slots: number): void {
    for (let step = 0; step < slots; step += 1) {
      this.slotNow += 1n;
      this.blockhashSlots.set(this.blockhashOf(this.slotNow), this.slotNow);
    }
    this.slotTime = Math.floor(Date.now() / 1000);
    this.syncClock();
    this.prune();
  }

  private syncClock(slot = this.slotNow, unixTimestamp = this.slotTime): void {
    this.svm.warpToSlot(slot);
    const clock = this.svm.getClock();
    clock.unixTimestamp = BigInt(unixTimestamp);
    this.svm.setClock(clock);
  }

  private prune(): void {
    const finalized = this.commitmentSlot('finalized');
    for (const slot of this.slotSnapshots.keys()) if (slot <= finalized) this.slotSnapshots.delete(slot);
    const oldest = this.slotNow - BigInt(this.options.blockhashValidity) - 1n;
    for (const [hash, slot] of this.blockhashSlots) if (slot < oldest) this.blockhashSlots.delete(hash);
  }

  readAccount(address: string): AccountState | null {
    const account = this.svm.getAccount(address as Address);
    if (!account.exists) return null;
    return { lamports: account.lamports, data: Uint8Array.from(account.data), owner: account.programAddress, executable: account.executable };
  }

  /** The account as of the slot `commitment` names: later transactions' writes undone. */
  readAccountAt(address: string, commitment: Commitment): AccountState | null {
    const horizon = this.commitmentSlot(commitment);
    let state = this.readAccount(address);
    const history = this.byAddress.get(address) ?? [];
    for (let index = history.length - 1; index >= 0; index -= 1) {
      const transaction = history[index]!;
      if (transaction.slot <= horizon) break;
      if (transaction.preStates.has(address)) state = transaction.preStates.get(address) ?? null;
    }
    return state;
  }

  transaction(signature: string): LandedTransaction | undefined {
    return this.bySignature.get(signature);
  }

  /** Transactions naming `address`, oldest first. */
  history(address: string): readonly LandedTransaction[] {
    return this.byAddress.get(address) ?? [];
  }

  decode(wire: Uint8Array): DecodedTransaction {
    const transaction = getTransactionDecoder().decode(wire);
    const message = getCompiledTransactionMessageDecoder().decode(transaction.messageBytes);
    if (message.version !== 'legacy' && message.version !== 0) throw new Error(`Transaction version (${String(message.version)}) is not supported`);
    if (message.version === 0 && (message.addressTableLookups ?? []).length > 0) throw new Error('address table lookups are not supported by this node');
    const base58 = getBase58Decoder();
    const signatures = Object.values(transaction.signatures).map((bytes) => (bytes === null ? null : base58.decode(bytes)));
    const { numSignerAccounts, numReadonlySignerAccounts, numReadonlyNonSignerAccounts } = message.header;
    const accountKeys = message.staticAccounts.map(String);
    const writable = accountKeys.map((_, index) =>
      index < numSignerAccounts ? index < numSignerAccounts - numReadonlySignerAccounts : index < accountKeys.length - numReadonlyNonSignerAccounts,
    );
    return {
      transaction,
      signature: signatures[0] ?? base58.decode(new Uint8Array(64)),
      signatures,
      version: message.version,
      header: { numRequiredSignatures: numSignerAccounts, numReadonlySignedAccounts: numReadonlySignerAccounts, numReadonlyUnsignedAccounts: numReadonlyNonSignerAccounts },
      accountKeys,
      writable,
      signer: accountKeys.map((_, index) => index < numSignerAccounts),
      recentBlockhash: message.lifetimeToken,
      instructions: message.instructions.map((instruction) => ({
        programIdIndex: instruction.programAddressIndex,
        accounts: [...(instruction.accountIndices ?? [])],
        data: Uint8Array.from(instruction.data ?? []),
        stackHeight: null,
      })),
    };
  }

  /**
   * Sends one transaction as a validator's RPC would: with preflight, any failure refuses it;
   * without, a transaction that cannot be charged (expired blockhash, bad signature, no fee) is
   * dropped and one that fails in a program lands with its error.
   */
  send(decoded: DecodedTransaction, wire: Uint8Array, options: { preflight: boolean }): SendOutcome {
    const refuse = (error: SolanaTransactionError): SendOutcome =>
      options.preflight ? { kind: 'refused', error, logs: [], unitsConsumed: 0n } : { kind: 'dropped', signature: decoded.signature, error };
    if (decoded.signatures.some((signature) => signature === null)) return refuse('SignatureFailure');
    if (!this.isBlockhashValid(decoded.recentBlockhash)) return refuse('BlockhashNotFound');
    if (this.bySignature.has(decoded.signature)) return refuse('AlreadyProcessed');
    if (options.preflight) {
      const simulated = this.svm.simulateTransaction(decoded.transaction);
      if (simulated instanceof FailedTransactionMetadata) {
        const meta = simulated.meta();
        return { kind: 'refused', error: toSolanaError(simulated.err()), logs: meta.logs(), unitsConsumed: meta.computeUnitsConsumed() };
      }
    }
    const outcome = this.execute(decoded, wire, this.slotNow, this.slotTime);
    if ('error' in outcome) return { kind: 'dropped', signature: decoded.signature, error: outcome.error };
    this.record(outcome.landed);
    return { kind: 'landed', transaction: outcome.landed };
  }

  private execute(decoded: DecodedTransaction, wire: Uint8Array, slot: bigint, blockTime: number): { landed: LandedTransaction } | { error: SolanaTransactionError } {
    const before = decoded.accountKeys.map((key) => this.readAccount(key));
    const preTokenBalances = this.tokenBalances(decoded.accountKeys, before);
    if (!this.slotSnapshots.has(slot)) this.slotSnapshots.set(slot, this.svm.toBytes());
    let result: TransactionMetadata | FailedTransactionMetadata;
    try {
      result = this.svm.sendTransaction(decoded.transaction);
    } catch {
      return { error: 'SignatureFailure' };
    }
    let err: SolanaTransactionError | null = null;
    let meta: TransactionMetadata;
    if (result instanceof FailedTransactionMetadata) {
      err = toSolanaError(result.err());
      if (!landsWith(err)) return { error: err };
      meta = result.meta();
    } else {
      meta = result;
    }
    const after = decoded.accountKeys.map((key) => this.readAccount(key));
    const preBalances = before.map((account) => account?.lamports ?? 0n);
    const postBalances = after.map((account) => account?.lamports ?? 0n);
    const sum = (values: bigint[]): bigint => values.reduce((total, value) => total + value, 0n);
    const preStates = new Map<string, AccountState | null>();
    decoded.accountKeys.forEach((key, index) => {
      if (decoded.writable[index] === true && !preStates.has(key)) preStates.set(key, before[index] ?? null);
    });
    const innerInstructions = meta
      .innerInstructions()
      .map((group, index) => ({
        index,
        instructions: group.map((inner) => {
          const compiled = inner.instruction();
          return { programIdIndex: compiled.programIdIndex(), accounts: [...compiled.accounts()], data: Uint8Array.from(compiled.data()), stackHeight: inner.stackHeight() };
        }),
      }))
      .filter((group) => group.instructions.length > 0);
    return {
      landed: {
        signature: decoded.signature,
        signatures: decoded.signatures.map(String),
        version: decoded.version,
        header: decoded.header,
        accountKeys: decoded.accountKeys,
        writable: decoded.writable,
        signer: decoded.signer,
        recentBlockhash: decoded.recentBlockhash,
        instructions: decoded.instructions,
        wire,
        slot,
        blockTime,
        err,
        // Lamports only leave the transaction's accounts as its fee (base and priority).
        fee: sum(preBalances) - sum(postBalances),
        preBalances,
        postBalances,
        preTokenBalances,
        postTokenBalances: this.tokenBalances(decoded.accountKeys, after),
        innerInstructions,
        logMessages: meta.logs(),
        computeUnitsConsumed: meta.computeUnitsConsumed(),
        preStates,
      },
    };
  }

  /** Token balances of the token accounts among `states`, decimals read from each mint now. */
  private tokenBalances(keys: string[], states: (AccountState | null)[]): TokenBalance[] {
    const balances: TokenBalance[] = [];
    states.forEach((state, accountIndex) => {
      if (state === null) return;
      const account = readTokenAccount(state.owner, state.data);
      if (account === undefined) return;
      const mintIndex = keys.indexOf(account.mint);
      const mintState = (mintIndex === -1 ? undefined : states[mintIndex]) ?? this.readAccount(account.mint);
      const mint = mintState === null ? undefined : readMint(mintState.owner, mintState.data);
      if (mint === undefined) return;
      balances.push({ accountIndex, mint: account.mint, owner: account.owner, programId: state.owner, amount: account.amount, decimals: mint.decimals });
    });
    return balances;
  }

  private record(transaction: LandedTransaction): void {
    this.landed.push(transaction);
    this.bySignature.set(transaction.signature, transaction);
    for (const key of new Set(transaction.accountKeys)) {
      const list = this.byAddress.get(key) ?? [];
      list.push(transaction);
      this.byAddress.set(key, list);
    }
  }

  /** The rollback hook: undoes a transaction that is not finalized (see the head of this file). */
  drop(signature: string): DropOutcome {
    const target = this.bySignature.get(signature);
    if (target === undefined) return { dropped: false, reason: 'unknown' };
    if (target.slot <= this.commitmentSlot('finalized')) return { dropped: false, reason: 'finalized' };
    const snapshot = this.slotSnapshots.get(target.slot);
    if (snapshot === undefined) throw new Error(`no snapshot for slot ${target.slot}`);
    const later = this.landed.filter((transaction) => transaction.slot >= target.slot && transaction !== target);
    this.landed = this.landed.filter((transaction) => transaction.slot < target.slot);
    for (const transaction of [target, ...later]) this.bySignature.delete(transaction.signature);
    this.byAddress = new Map();
    const kept = this.landed;
    this.landed = [];
    for (const transaction of kept) this.record(transaction);
    for (const slot of this.slotSnapshots.keys()) if (slot >= target.slot) this.slotSnapshots.delete(slot);
    this.svm = Chain.configure(LiteSVM.fromBytes(snapshot));
    const replayed: string[] = [];
    const lost: string[] = [];
    for (const transaction of later) {
      this.syncClock(transaction.slot, transaction.blockTime);
      const outcome = this.execute(this.decode(transaction.wire), transaction.wire, transaction.slot, transaction.blockTime);
      if ('error' in outcome) {
        lost.push(transaction.signature);
      } else {
        this.record(outcome.landed);
        replayed.push(transaction.signature);
      }
    }
    this.syncClock();
    return { dropped: true, signature, replayed, lost };
  }
}
