import { describe, expect, it } from 'vitest';
import { createChainAdapters, familyAccess, familyDrivers, type ChainAdapter } from '../../src/chains/index.js';

// Issue 21 item 1, decision 0028: adapters are found by family and chain id, and the registry
// runs only the families that have a driver while every family has an access parser.

const adapter: ChainAdapter = { name: 'test', allocateAddress: async () => 'address' };

describe('chain adapters by family', () => {
  it('a chain id serves only the family it was registered under', () => {
    const adapters = createChainAdapters({ evm: new Map([[8453, adapter]]) });
    expect(adapters.adapterFor(false, 8453, 'evm')).toBe(adapter);
    expect(adapters.adapterFor(false, 8453, 'tron')).toBeUndefined();
    expect(adapters.adapterFor(false, 8454, 'evm')).toBeUndefined();
  });

  it('the first set that serves the network wins', () => {
    const other: ChainAdapter = { name: 'other', allocateAddress: async () => 'other' };
    expect(createChainAdapters({ tron: new Map([[1, other]]) }, { tron: new Map([[1, adapter]]) }).adapterFor(false, 1, 'tron')).toBe(other);
  });

  it('every family has a running driver (EVM; Tron, issue 23; Solana, issue 24) and an access parser', () => {
    expect(familyDrivers.map((driver) => driver.family)).toEqual(['evm', 'tron', 'solana']);
    expect(Object.keys(familyAccess).sort()).toEqual(['evm', 'solana', 'tron']);
  });
});
