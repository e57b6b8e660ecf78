import { getCreateAssociatedTokenIdempotentInstruction, getTransferCheckedInstruction } from '@solana-program/token';
import { AccountRole, address as toAddress } from '@solana/kit';
import { sendSigned, signTransaction, waitConfirmed } from '../../src/chains/solana/solana-rpc.js';
import { tokenAccountOf, type SolanaHarness } from './solana-chain.js';

/**
 * Pays like a Solana Pay wallet scanning `solana:<owner>?amount=…&spl-token=…&reference=…`:
 * a TransferChecked to `owner`'s associated token account with the reference appended as a
 * read-only, non-signer account key (Solana Pay spec, "reference"), the account created when
 * missing. The payer's tokens are minted first. Answers the signature, at `confirmed`.
 */
export async function payWithSolanaPay(harness: SolanaHarness, owner: string, amount: bigint, reference: string): Promise<string> {
  const { tokenAccount: source, signature: minted } = await harness.node.mintTo({ mint: harness.mint, owner: harness.payer.address, amount });
  await waitConfirmed(harness.rpc, minted, 10_000);
  const destination = await tokenAccountOf(harness, owner);
  const transfer = getTransferCheckedInstruction(
    { source, mint: harness.mint, destination, authority: harness.payer, amount, decimals: 6 },
    { programAddress: harness.tokenProgram },
  );
  const signed = await signTransaction(harness.rpc, harness.payer, [
    getCreateAssociatedTokenIdempotentInstruction({ payer: harness.payer, ata: destination, owner: toAddress(owner), mint: harness.mint, tokenProgram: harness.tokenProgram }),
    { ...transfer, accounts: [...transfer.accounts, { address: toAddress(reference), role: AccountRole.READONLY }] },
  ]);
  await sendSigned(harness.rpc, signed.wireBase64);
  await waitConfirmed(harness.rpc, signed.signature, 10_000);
  return signed.signature;
}
