import type { Hex, PublicClient } from 'viem';

/**
 * What a node said to one of our stored, signed transactions. Only a few
 * answers mean "try later"; the rest are facts about a transaction that is
 * already out there (ARCHITECTURE "Chains": a crash at any step leads to one
 * payout, so a rebroadcast must treat these as answers, not errors).
 */
export type BroadcastOutcome =
  /** Accepted into the pool now. */
  | 'accepted'
  /** The node has it already ("already known", "known transaction"). */
  | 'known'
  /** "nonce too low": the nonce is used, by this transaction or another; the receipt will tell. */
  | 'nonce_used'
  /** "replacement underpriced": a transaction with this nonce and a higher fee is in the pool (a fee bump of ours). */
  | 'underpriced'
  /** The relayer cannot pay the gas: `gas.wait` until it is funded. */
  | 'insufficient_funds';

/**
 * Broadcasts a raw transaction and classifies the node's answer. Throws for
 * anything else (RPC down, timeout, a node error we do not know): the stored
 * transaction is broadcast again later, so a throw loses nothing.
 */
export async function broadcastRaw(client: PublicClient, rawTransaction: Hex): Promise<BroadcastOutcome> {
  try {
    await client.sendRawTransaction({ serializedTransaction: rawTransaction });
    return 'accepted';
  } catch (error) {
    const outcome = classify(error);
    if (outcome === undefined) throw error;
    return outcome;
  }
}

function classify(error: unknown): BroadcastOutcome | undefined {
  const text = messagesOf(error).toLowerCase();
  if (/already known|known transaction|already imported|alreadyknown|transaction already exists/.test(text)) return 'known';
  if (/nonce too low|noncetoolow|nonce is too low|oldnonce/.test(text)) return 'nonce_used';
  if (/replacement (transaction )?underpriced|replacementunderpriced|fee too low to replace/.test(text)) return 'underpriced';
  if (/insufficient funds|insufficientfunds|insufficient balance/.test(text)) return 'insufficient_funds';
  return undefined;
}

/** viem wraps the node's words several levels deep (`cause`, `details`). */
function messagesOf(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 8 && current !== undefined && current !== null; depth += 1) {
    if (current instanceof Error) {
      parts.push(current.message);
      const details = (current as { details?: unknown }).details;
      if (typeof details === 'string') parts.push(details);
      current = (current as { cause?: unknown }).cause;
    } else {
      parts.push(String(current));
      break;
    }
  }
  return parts.join(' | ');
}
