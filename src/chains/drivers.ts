import type { FamilyAccessParsers, ChainFamilyDriver } from './family-driver.js';
import { evmDriver } from './evm/index.js';
import { tronDriver } from './tron/index.js';
import { solanaDriver } from './solana/index.js';

/**
 * The families that run on this version, by family. A network of a family
 * absent here is listed but never live (`network_not_ready`). Solana joined
 * once an exact live invoice went end to end on the local node (issue 24).
 */
export const familyDrivers: readonly ChainFamilyDriver[] = [evmDriver, tronDriver, solanaDriver];

/**
 * How every family's catalogue entries are read (decision 0028): a family's
 * access is checked at start even before it has a driver, so an operator
 * learns of a bad field on the day the entry is written. A family with a
 * driver answers with the driver's own parser.
 */
export const familyAccess: FamilyAccessParsers = {
  evm: evmDriver.access,
  tron: tronDriver.access,
  solana: solanaDriver.access,
};
