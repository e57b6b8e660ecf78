import { address as toAddress, signature as toSignature, type Signature } from '@solana/kit';
import type { AddressSignatureSource, WatchedTransfer } from '../ingest/index.js';
import { bounded, signatureStates, type SolanaRpc } from './solana-rpc.js';

/** A watched deposit token account: whose it is and which mint the issuance takes. */
export interface WatchedTokenAccount {
  readonly issuanceId: string;
  /** The issuance's token account: whatever address a transaction was found through, its balance change is the credit. */
  readonly tokenAccount: string;
  /** The deposit key's wallet address: the payment address shown, and the transfers' `to`. */
  readonly owner: string;
  readonly mint: string;
}

const PAGE = 1_000;

/**
 * Solana's transfer source (issue 24 item 5): per watched address,
 * `getSignaturesForAddress` at `confirmed` after a stored cursor, then
 * `getTransaction` of each new signature; the credited amount is the
 * issuance token account's balance change in that transaction (post − pre; a
 * missing pre-balance is zero), keyed by (signature, the token account's
 * index). The watched address is the token account itself or the issuance's
 * Solana Pay reference (decision 0039): a transaction found through both is
 * one transfer under one key, stored once. A balance
 * change in another mint is recorded, never credited. The cursor moves only
 * to a finalized signature, so nothing above it can still vanish; the fate of
 * transfers seen at `confirmed` is asked with `getSignatureStatuses`.
 */
export function solanaTransferSource(deps: {
  readonly rpc: SolanaRpc;
  readonly chainId: number;
  /** The token account a watched address (a token account or a reference) stands for. */
  readonly watched: (address: string) => WatchedTokenAccount | undefined;
}): AddressSignatureSource {
  const { rpc, chainId } = deps;
  return {
    kind: 'address-signatures',
    async read(address, after) {
      const account = deps.watched(address);
      if (account === undefined) return { transfers: [], newest: after };
      const signatures = await newerSignatures(rpc, address, after);
      const newestFinal = signatures.find((entry) => entry.confirmationStatus === 'finalized');
      const transfers: WatchedTransfer[] = [];
      // Oldest first: the inbox keeps chain order.
      for (const entry of [...signatures].reverse()) {
        if (entry.err !== null) continue;
        transfers.push(...(await transfersIn(rpc, chainId, entry.signature, account)));
      }
      return { transfers, newest: newestFinal?.signature ?? after };
    },
    async fates(transfers) {
      const finalSlot = await rpc.getSlot({ commitment: 'finalized' }).send(bounded());
      const states = await signatureStates(
        rpc,
        transfers.map((transfer) => transfer.txHash),
      );
      return transfers.map((transfer, index) => {
        const state = states[index] ?? null;
        if (state === null) return transfer.blockNumber <= finalSlot ? 'gone' : 'pending';
        if (state.finalized) return state.failed ? 'gone' : 'final';
        return 'pending';
      });
    },
  };
}

interface SignatureEntry {
  readonly signature: Signature;
  readonly err: unknown;
  readonly confirmationStatus: string | null;
}

/** Every signature of `address` after `after` at `confirmed`, newest first, page by page. */
async function newerSignatures(rpc: SolanaRpc, address: string, after: string | null): Promise<SignatureEntry[]> {
  const found: SignatureEntry[] = [];
  let before: Signature | undefined;
  for (;;) {
    const page = await rpc
      .getSignaturesForAddress(toAddress(address), {
        commitment: 'confirmed',
        limit: PAGE,
        ...(after === null ? {} : { until: toSignature(after) }),
        ...(before === undefined ? {} : { before }),
      })
      .send(bounded());
    found.push(...page.map((entry) => ({ signature: entry.signature, err: entry.err, confirmationStatus: entry.confirmationStatus })));
    const last = page[page.length - 1];
    if (page.length < PAGE || last === undefined) return found;
    before = last.signature;
  }
}

/** The token balance changes of the account's token account in one transaction that increased it. */
async function transfersIn(rpc: SolanaRpc, chainId: number, signature: Signature, account: WatchedTokenAccount): Promise<WatchedTransfer[]> {
  const { tokenAccount } = account;
  const transaction = await rpc
    .getTransaction(signature, { commitment: 'confirmed', encoding: 'json', maxSupportedTransactionVersion: 0 })
    .send(bounded());
  if (transaction === null || transaction.meta === null || transaction.meta.err !== null) return [];
  const keys: string[] = [
    ...transaction.transaction.message.accountKeys,
    ...(transaction.meta.loadedAddresses?.writable ?? []),
    ...(transaction.meta.loadedAddresses?.readonly ?? []),
  ];
  const pre = transaction.meta.preTokenBalances ?? [];
  const post = transaction.meta.postTokenBalances ?? [];
  const amountAt = (balances: typeof pre, index: number) => {
    const entry = balances.find((balance) => balance.accountIndex === index);
    return entry === undefined ? 0n : BigInt(entry.uiTokenAmount.amount);
  };
  const transfers: WatchedTransfer[] = [];
  keys.forEach((key, index) => {
    if (key !== tokenAccount) return;
    const after = post.find((balance) => balance.accountIndex === index);
    if (after === undefined) return;
    const delta = amountAt(post, index) - amountAt(pre, index);
    if (delta <= 0n) return;
    // The payer: the account of the same mint whose balance fell the most.
    const payer = post
      .filter((balance) => balance.mint === after.mint && balance.accountIndex !== index)
      .map((balance) => ({ owner: balance.owner ?? keys[balance.accountIndex] ?? '', fell: amountAt(pre, balance.accountIndex) - amountAt(post, balance.accountIndex) }))
      .filter((candidate) => candidate.fell > 0n)
      .sort((left, right) => (right.fell > left.fell ? 1 : right.fell < left.fell ? -1 : 0))[0];
    transfers.push({
      chainId,
      txHash: signature,
      logIndex: index,
      blockNumber: transaction.slot,
      blockHash: '',
      token: after.mint,
      fromAddress: payer?.owner ?? '',
      toAddress: account.owner,
      amount: delta,
      issuanceId: account.issuanceId,
      status: 'observed',
      credited: after.mint === account.mint,
      ledgerStatus: null,
    });
  });
  return transfers;
}
