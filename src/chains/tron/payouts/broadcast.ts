import type { TronApi } from '../tron-api.js';
import { broadcastBody } from '../tron-transaction.js';

export type TronBroadcastOutcome =
  | { readonly kind: 'accepted' }
  /** The node has it already (a rebroadcast). */
  | { readonly kind: 'known' }
  /** Past its expiration: it can never land. */
  | { readonly kind: 'expired' }
  /** The relayer cannot pay the bandwidth or the energy. */
  | { readonly kind: 'insufficient_trx' };

/**
 * `/wallet/broadcasttransaction` with java-tron's answer codes. A code Ivory
 * cannot act on (a signature the node refuses, a tapos error from a node that
 * lost the reference block) is thrown: the payout worker retries with back-off
 * and the stored transaction is sent again.
 */
export async function broadcastTronTransaction(api: TronApi, rawDataHex: string, signature: string): Promise<TronBroadcastOutcome> {
  const answer = await api.call<{ result?: boolean; code?: string; message?: string }>('/wallet/broadcasttransaction', broadcastBody(rawDataHex, signature));
  if (answer.result === true) return { kind: 'accepted' };
  const message = decodeMessage(answer.message);
  switch (answer.code) {
    case 'DUP_TRANSACTION_ERROR':
      return { kind: 'known' };
    case 'TRANSACTION_EXPIRATION_ERROR':
      return { kind: 'expired' };
    // java-tron spells it BANDWITH_ERROR.
    case 'BANDWITH_ERROR':
      return { kind: 'insufficient_trx' };
    case 'CONTRACT_VALIDATE_ERROR':
      if (/balance|not enough|insufficient/i.test(message)) return { kind: 'insufficient_trx' };
      break;
  }
  throw new Error(`broadcast refused: ${answer.code ?? 'no code'} ${message}`);
}

function decodeMessage(message: string | undefined): string {
  if (message === undefined) return '';
  if (/^([0-9a-fA-F]{2})+$/.test(message)) return Buffer.from(message, 'hex').toString('utf8');
  return message;
}
