import { findAssociatedTokenPda } from '@solana-program/token';
import { address as toAddress } from '@solana/kit';
import type { ErrorCode } from '../../platform/errors.js';
import { existingAccounts, mintTokenProgram, type SolanaRpc } from './solana-rpc.js';

/**
 * SPEC "Errors" `solana_recipient_token_account_required`: the recipient
 * wallet must hold a token account for the mint (its associated one, in the
 * mint's token program), or the sweep would have nowhere to send `amount −
 * fee`. Undefined when it does, or when the node does not answer (the sweep
 * checks again and fails for the operator).
 */
export async function recipientTokenAccountProblem(rpc: SolanaRpc, recipient: string, mint: string): Promise<ErrorCode | undefined> {
  try {
    const tokenProgram = await mintTokenProgram(rpc, mint);
    if (tokenProgram === undefined) return undefined;
    const [account] = await findAssociatedTokenPda({ owner: toAddress(recipient), mint: toAddress(mint), tokenProgram: toAddress(tokenProgram) });
    const [exists] = await existingAccounts(rpc, [account], 'confirmed');
    return exists === true ? undefined : 'solana_recipient_token_account_required';
  } catch {
    return undefined;
  }
}
