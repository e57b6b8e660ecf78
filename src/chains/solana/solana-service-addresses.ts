import type { Executor } from '../../platform/database/database.js';
import { findSolanaRelayerByAddress, isDepositAddress } from './solana-keys.repository.js';

/**
 * SPEC "Errors" (`invalid_solana_address`: a service address): Ivory's own
 * Solana addresses that must never be a payout recipient — any network's
 * relayer, and every deposit address or deposit token account. (Mints and fee
 * wallets come from the catalogue; merchants' service wallets from theirs.)
 */
export async function isSolanaServiceAddress(executor: Executor, address: string): Promise<boolean> {
  return (await findSolanaRelayerByAddress(executor, address)) || (await isDepositAddress(executor, address));
}
