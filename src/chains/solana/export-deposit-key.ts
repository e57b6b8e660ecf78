import type { SecretBox } from '../../platform/crypto.js';
import type { Executor } from '../../platform/database/database.js';
import { base58 } from '../base58.js';
import { openDepositKey } from './solana-keys.js';
import { findDepositAddress } from './solana-keys.repository.js';

/**
 * The deposit key of one issuance, for an operator recovering funds by hand
 * (`ivory solana export-key`, decision 0036): base58 of the 64-byte keypair
 * (seed then public key), as Solana wallets import it. Undefined when the
 * issuance has no Solana deposit address.
 */
export async function exportDepositKey(executor: Executor, secrets: SecretBox, issuanceId: string): Promise<{ readonly address: string; readonly secretKey: string } | undefined> {
  const deposit = await findDepositAddress(executor, issuanceId);
  if (deposit === undefined) return undefined;
  const key = await openDepositKey(executor, secrets, deposit.derivationIndex);
  if (key.address !== deposit.ownerAddress) throw new Error(`the deposit seed derives ${key.address} at index ${deposit.derivationIndex}, not ${deposit.ownerAddress}`);
  const keypair = new Uint8Array(64);
  keypair.set(key.privateKey, 0);
  keypair.set(key.publicKey, 32);
  key.privateKey.fill(0);
  const secretKey = base58.encode(keypair);
  keypair.fill(0);
  return { address: key.address, secretKey };
}
