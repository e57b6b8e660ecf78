import {
  address as toAddress,
  appendTransactionMessageInstructions,
  blockhash as toBlockhash,
  createKeyPairSignerFromPrivateKeyBytes,
  createSolanaRpc,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signature as toSignature,
  signTransactionMessageWithSigners,
  type Address,
  type Base64EncodedWireTransaction,
  type Instruction,
  type KeyPairSigner,
} from '@solana/kit';

/**
 * The reads and writes Ivory makes of a Solana node, on exactly issue 24
 * item 3's methods, through `@solana/kit`. Every call is bounded by a
 * timeout (the payout worker's lease; the allocation job's).
 */
export type SolanaRpc = ReturnType<typeof createSolanaRpc>;

export const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
export const TOKEN_2022_PROGRAM = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb';
/** A token account's size: the base layout; Token-2022's associated accounts add the ImmutableOwner extension. */
const TOKEN_ACCOUNT_BYTES = { [TOKEN_PROGRAM]: 165n, [TOKEN_2022_PROGRAM]: 170n } as const;
const TIMEOUT_MS = 10_000;

export function solanaRpc(url: string): SolanaRpc {
  return createSolanaRpc(url);
}

/** Aborts a node call that outlives `TIMEOUT_MS`. */
export function bounded(): { abortSignal: AbortSignal } {
  return { abortSignal: AbortSignal.timeout(TIMEOUT_MS) };
}

/** The token program that owns `mint` (SPL Token or Token-2022), at `confirmed`; undefined when the mint is missing or not a token mint. */
export async function mintTokenProgram(rpc: SolanaRpc, mint: string): Promise<string | undefined> {
  const { value } = await rpc.getAccountInfo(toAddress(mint), { commitment: 'confirmed', encoding: 'base64', dataSlice: { offset: 0, length: 0 } }).send(bounded());
  if (value === null) return undefined;
  return value.owner === TOKEN_PROGRAM || value.owner === TOKEN_2022_PROGRAM ? value.owner : undefined;
}

/** Which of `addresses` exist at `commitment`, in one `getMultipleAccounts`. */
export async function existingAccounts(rpc: SolanaRpc, addresses: readonly string[], commitment: 'confirmed' | 'finalized'): Promise<boolean[]> {
  if (addresses.length === 0) return [];
  const { value } = await rpc
    .getMultipleAccounts(addresses.map((item) => toAddress(item)), { commitment, encoding: 'base64', dataSlice: { offset: 0, length: 0 } })
    .send(bounded());
  return value.map((account) => account !== null);
}

/** Lamports a token account of `tokenProgram` needs to be rent-exempt. */
export async function tokenAccountRent(rpc: SolanaRpc, tokenProgram: string): Promise<bigint> {
  const size = tokenProgram === TOKEN_2022_PROGRAM ? TOKEN_ACCOUNT_BYTES[TOKEN_2022_PROGRAM] : TOKEN_ACCOUNT_BYTES[TOKEN_PROGRAM];
  return rpc.getMinimumBalanceForRentExemption(size, { commitment: 'confirmed' }).send(bounded());
}

export async function lamportsOf(rpc: SolanaRpc, owner: string): Promise<bigint> {
  const { value } = await rpc.getBalance(toAddress(owner), { commitment: 'confirmed' }).send(bounded());
  return value;
}

/** A token account's balance in base units at `confirmed`; 0 for a missing account. */
export async function tokenBalance(rpc: SolanaRpc, tokenAccount: string): Promise<bigint> {
  const [exists] = await existingAccounts(rpc, [tokenAccount], 'confirmed');
  if (exists !== true) return 0n;
  const { value } = await rpc.getTokenAccountBalance(toAddress(tokenAccount), { commitment: 'confirmed' }).send(bounded());
  return BigInt(value.amount);
}

export async function signerOf(privateKey: Uint8Array): Promise<KeyPairSigner> {
  return createKeyPairSignerFromPrivateKeyBytes(Uint8Array.from(privateKey));
}

export interface SignedTransaction {
  readonly signature: string;
  readonly wireBase64: string;
  /** The blockhash's expiry: the transaction can land only at a block height at most this. */
  readonly lastValidBlockHeight: bigint;
}

/** Builds a version 0 transaction paid by `feePayer` on the newest `confirmed` blockhash and signs it with every signer its instructions name. */
export async function signTransaction(rpc: SolanaRpc, feePayer: KeyPairSigner, instructions: readonly Instruction[]): Promise<SignedTransaction> {
  const { value: latest } = await rpc.getLatestBlockhash({ commitment: 'confirmed' }).send(bounded());
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (draft) => setTransactionMessageFeePayerSigner(feePayer, draft),
    (draft) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: toBlockhash(latest.blockhash), lastValidBlockHeight: latest.lastValidBlockHeight }, draft),
    (draft) => appendTransactionMessageInstructions(instructions, draft),
  );
  const signed = await signTransactionMessageWithSigners(message);
  return { signature: getSignatureFromTransaction(signed), wireBase64: getBase64EncodedWireTransaction(signed), lastValidBlockHeight: latest.lastValidBlockHeight };
}

/**
 * Sends a signed transaction without preflight: its fate is read back by
 * signature (`signatureStatus`), so a send that errs is harmless to repeat.
 */
export async function sendSigned(rpc: SolanaRpc, wireBase64: string): Promise<void> {
  await rpc.sendTransaction(wireBase64 as Base64EncodedWireTransaction, { encoding: 'base64', skipPreflight: true, maxRetries: 0n }).send(bounded());
}

export interface SignatureState {
  readonly slot: bigint;
  readonly finalized: boolean;
  readonly confirmed: boolean;
  readonly failed: boolean;
}

/** What the node says of each signature (null: in no block it knows), in one `getSignatureStatuses`. */
export async function signatureStates(rpc: SolanaRpc, signatures: readonly string[]): Promise<(SignatureState | null)[]> {
  if (signatures.length === 0) return [];
  const { value } = await rpc.getSignatureStatuses(signatures.map((item) => toSignature(item)), { searchTransactionHistory: true }).send(bounded());
  return value.map((status) =>
    status === null
      ? null
      : {
          slot: status.slot,
          finalized: status.confirmationStatus === 'finalized',
          confirmed: status.confirmationStatus === 'confirmed' || status.confirmationStatus === 'finalized',
          failed: status.err !== null,
        },
  );
}

/** Block heights at `confirmed` (the head Ivory trusts) and `finalized`. */
export async function blockHeights(rpc: SolanaRpc): Promise<{ readonly head: bigint; readonly final: bigint }> {
  const [head, final] = await Promise.all([rpc.getBlockHeight({ commitment: 'confirmed' }).send(bounded()), rpc.getBlockHeight({ commitment: 'finalized' }).send(bounded())]);
  return { head, final };
}

/** Waits until `signature` is at `confirmed` (or later); throws when it failed, or after `timeoutMs`. */
export async function waitConfirmed(rpc: SolanaRpc, signature: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [state] = await signatureStates(rpc, [signature]);
    if (state?.failed === true) throw new Error(`transaction ${signature} failed on chain`);
    if (state?.confirmed === true) return;
    if (Date.now() > deadline) throw new Error(`transaction ${signature} not confirmed within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export type { Address };
