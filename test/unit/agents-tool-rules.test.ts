import { describe, expect, it } from 'vitest';
import { baseUnitsOf, decimalOf } from '../../src/agents/amounts.js';
import { resolveAsset } from '../../src/agents/assets.js';
import { derivedKey, freshKey } from '../../src/agents/idempotency-key.js';
import { ToolFailure } from '../../src/agents/tool.js';
import type { components } from '../../src/client/index.js';

// Issue 26 item 1: the rules the MCP tools add at the edge — decimal amounts, names instead of
// chain ids and addresses, idempotency keys a model can rely on.

type Network = components['schemas']['Network'];
const network = (name: string, chainId: number, tokens: Network['tokens']): Network => ({
  chain_id: chainId,
  name,
  native_symbol: 'ETH',
  explorer_url: '',
  main_factory: '',
  invoice_factory: '',
  start_block: 0,
  tokens,
  minimum_payment: '1',
  family: 'evm',
  live: false,
});
const NETWORKS = [
  network('Base', 8453, [{ address: '0xusdc', symbol: 'USDC', decimals: 6, status: 'ready' }]),
  network('BNB Smart Chain', 56, [
    { address: '0xbusdt', symbol: 'USDT', decimals: 18, status: 'ready' },
    { address: '0xbusdc', symbol: 'USDC', decimals: 18 },
  ]),
];

function failure(run: () => unknown): ToolFailure {
  try {
    run();
  } catch (error) {
    if (error instanceof ToolFailure) return error;
    throw error;
  }
  throw new Error('no failure');
}

describe('amounts are decimal token amounts at the edge (STYLE "Habits" 1)', () => {
  it('converts with the token\'s decimals, both ways', () => {
    expect(baseUnitsOf('25.5', 6, 'USDC')).toBe('25500000');
    expect(baseUnitsOf('1', 18, 'USDT')).toBe('1000000000000000000');
    expect(decimalOf('25500000', 6)).toBe('25.5');
    expect(decimalOf(null, 6)).toBeNull();
  });

  it('refuses base-unit-looking mistakes with invalid_amount: more decimals than the token has, zero, signs, exponents', () => {
    for (const amount of ['0.0000001', '0', '-1', '1e6', '', ' ', '1,5']) {
      expect(failure(() => baseUnitsOf(amount, 6, 'USDC')).code, amount).toBe('invalid_amount');
    }
  });
});

describe('networks by name and tokens by symbol, from /networks', () => {
  it('resolves any letter case, or a chain id, to the chain id, address and decimals', () => {
    expect(resolveAsset(NETWORKS, 'bnb smart chain', 'usdt')).toMatchObject({ chainId: 56, token: '0xbusdt', decimals: 18, network: 'BNB Smart Chain' });
    expect(resolveAsset(NETWORKS, '8453', 'USDC')).toMatchObject({ chainId: 8453, token: '0xusdc' });
  });

  it('an unknown network is unsupported_network naming the networks; a token not ready there is unsupported_asset naming those that are', () => {
    const network = failure(() => resolveAsset(NETWORKS, 'Atlantis', 'USDC'));
    expect(network.code).toBe('unsupported_network');
    expect(network.advice).toContain('Base, BNB Smart Chain');
    const asset = failure(() => resolveAsset(NETWORKS, 'BNB Smart Chain', 'USDC'));
    expect(asset.code).toBe('unsupported_asset');
    expect(asset.advice).toContain('It offers: USDT.');
  });
});

describe('idempotency keys', () => {
  it('derived from the tool and its arguments, whatever their order; the caller\'s when given', () => {
    const one = derivedKey('create_invoice', { amount: '1', token: 'USDC', network: 'Base' });
    expect(one).toEqual({ key: expect.stringMatching(/^mcp-create_invoice-[0-9a-f]{32}$/), derived: true });
    expect(derivedKey('create_invoice', { network: 'Base', token: 'USDC', amount: '1' })).toEqual(one);
    expect(derivedKey('create_invoice', { network: 'Base', token: 'USDC', amount: '2' }).key).not.toBe(one.key);
    expect(derivedKey('create_deposit', { amount: '1', token: 'USDC', network: 'Base' }).key).not.toBe(one.key);
    expect(derivedKey('create_invoice', { amount: '1', idempotency_key: 'mine' })).toEqual({ key: 'mine', derived: false });
  });

  it('state-setting tools get a new key each call unless given one (pause again after enabling is a new intent)', () => {
    expect(freshKey({ id: 'x' })).not.toBe(freshKey({ id: 'x' }));
    expect(freshKey({ id: 'x', idempotency_key: 'retry-1' })).toBe('retry-1');
  });
});
