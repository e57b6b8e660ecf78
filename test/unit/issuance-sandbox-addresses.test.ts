import { describe, expect, it } from 'vitest';
import { addressCodec, createChainAdapters, sandboxAddress, sandboxTxHash } from '../../src/chains/index.js';

/** What the catalogue accepts as a contract address of the family: the exact form (EIP-55 on EVM). */
const wellFormed = (family: 'evm' | 'tron' | 'solana', address: string): boolean => addressCodec(family).contractProblem(address) === undefined;

// Issue 3 item 2: sandbox addresses are deterministic and valid-looking for the family; live
// networks without an adapter have none (network_not_ready).

const ID = '7b0e7c5e-3c1b-4b8e-9d55-0f3f1f5f2a10';

describe('sandbox chain adapter', () => {
  it('EVM: an EIP-55 checksummed address, the same for the same issuance', async () => {
    const address = sandboxAddress('evm', ID);
    expect(wellFormed('evm', address)).toBe(true);
    expect(sandboxAddress('evm', ID)).toBe(address);
    expect(sandboxAddress('evm', '00000000-0000-4000-8000-000000000000')).not.toBe(address);
    const adapter = createChainAdapters().adapterFor(true, 8453, 'evm');
    expect(await adapter?.allocateAddress({ issuanceId: ID, chainId: 8453, family: 'evm', kind: 'invoice', token: '0x' })).toBe(address);
  });

  it('Tron: base58check with the 0x41 prefix', () => {
    const address = sandboxAddress('tron', ID);
    expect(address).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);
    expect(wellFormed('tron', address)).toBe(true);
  });

  it('Solana: base58 of 32 bytes', () => {
    expect(wellFormed('solana', sandboxAddress('solana', ID))).toBe(true);
  });

  it('transaction hashes look like the family’s', () => {
    expect(sandboxTxHash('evm', Buffer.from('a'))).toMatch(/^0x[0-9a-f]{64}$/);
    expect(sandboxTxHash('tron', Buffer.from('a'))).toMatch(/^[0-9a-f]{64}$/);
    expect(sandboxTxHash('solana', Buffer.from('a'))).toMatch(/^[1-9A-HJ-NP-Za-km-z]{80,90}$/);
  });

  it('live networks have no adapter yet', () => {
    expect(createChainAdapters().adapterFor(false, 8453, 'evm')).toBeUndefined();
  });
});
