/**
 * Per-account resources java-tron keeps beside the balance: staked energy (here granted by a
 * test hook) and the daily free bandwidth, both spent and recovered linearly over a 24-hour
 * window of block time, as java-tron's window (28,800 slots of 3 s) does.
 */

export const RECOVERY_WINDOW_MS = 86_400_000;

export interface AccountResources {
  createTime: number;
  latestOperationTime: number;
  /** Energy the account holds from staking; granted by `TronNode.grantEnergy`. */
  energyLimit: number;
  energyUsed: number;
  energyTime: number;
  freeNetUsed: number;
  freeNetTime: number;
}

export function newResources(now: number): AccountResources {
  return { createTime: now, latestOperationTime: 0, energyLimit: 0, energyUsed: 0, energyTime: 0, freeNetUsed: 0, freeNetTime: 0 };
}

/** Usage still counted at `now` of `used` last charged at `since`. */
export function recovered(used: number, since: number, now: number): number {
  const elapsed = now - since;
  if (elapsed >= RECOVERY_WINDOW_MS) return 0;
  if (elapsed <= 0) return used;
  return Math.floor((used * (RECOVERY_WINDOW_MS - elapsed)) / RECOVERY_WINDOW_MS);
}

export function energyLeft(resources: AccountResources | undefined, now: number): number {
  if (resources === undefined) return 0;
  return Math.max(0, resources.energyLimit - recovered(resources.energyUsed, resources.energyTime, now));
}

export function freeNetLeft(resources: AccountResources | undefined, freeNetLimit: number, now: number): number {
  if (resources === undefined) return freeNetLimit;
  return Math.max(0, freeNetLimit - recovered(resources.freeNetUsed, resources.freeNetTime, now));
}

export function cloneResources(resources: Map<string, AccountResources>): Map<string, AccountResources> {
  return new Map([...resources].map(([address, value]) => [address, { ...value }]));
}
