import type { Executor } from '../../platform/database/database.js';
import { isForwarderAddress } from '../evm/index.js';
import { tvmAddress } from './tron-evm-address.js';
import { isTronRelayerAddress } from './tron-relayer.repository.js';

/**
 * Whether a `T…` address is one the chain side of this service runs on Tron:
 * a network's relayer, or an issuance's forwarder (a payment address). A
 * payout there would loop Ivory's own money (SPEC `invalid_tron_recipient`).
 */
export async function isOwnTronAddress(db: Executor, address: string): Promise<boolean> {
  return (await isTronRelayerAddress(db, address)) || (await isForwarderAddress(db, tvmAddress(address)));
}
