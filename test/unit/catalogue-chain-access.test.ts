import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadCatalogue } from '../../src/catalogue/index.js';

// Issue 9 "Operator path": per EVM network the catalogue file takes rpc_url and
// confirmations plus tuning; a network with an rpc_url and both factories is live;
// rpc_url never appears in an API answer.

const USDC = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48';
const FACTORY_A = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
const FACTORY_B = '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512';
const root = mkdtempSync(join(tmpdir(), 'ivory-chain-access-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

type Json = Record<string, unknown>;
let counter = 0;
function load(overrides: Json) {
  counter += 1;
  const file = join(root, `networks-${counter}.json`);
  const network = {
    chain_id: 31337,
    name: 'Local',
    family: 'evm',
    native_symbol: 'ETH',
    explorer_url: 'http://localhost',
    main_factory: FACTORY_A,
    invoice_factory: FACTORY_B,
    start_block: 7,
    enabled: true,
    minimum_payment: '1',
    terms: {
      invoice: { bps: 50, minimum: '100000000000000000', maximum: '5000000000000000000' },
      deposit: { bps: 50, minimum: '100000000000000000', maximum: '5000000000000000000' },
      sweep_threshold: '10',
      minimum_sweep: '5',
      maximum_sweep: '1000',
    },
    tokens: [{ address: USDC, symbol: 'USDC', decimals: 6, status: 'ready' }],
    ...overrides,
  };
  writeFileSync(file, JSON.stringify({ networks: [network] }));
  return { file, load: () => loadCatalogue(file) };
}

function failure(overrides: Json): string {
  try {
    load(overrides).load();
  } catch (error) {
    return (error as Error).message;
  }
  return '';
}

describe('catalogue: live EVM network access', () => {
  it('reads rpc_url, confirmations and tuning, with defaults', () => {
    const catalogue = load({ rpc_url: 'http://127.0.0.1:8545', confirmations: 2 }).load();
    expect(catalogue.network(31337)?.chain).toEqual({
      family: 'evm',
      rpcUrls: ['http://127.0.0.1:8545'],
      confirmations: 2,
      feeWallet: undefined,
      pollIntervalMs: 1_000,
      maxBlockRange: 2_000,
      useFinalizedTag: false,
      sweepBatchMax: 10,
    });
    const tuned = load({
      rpc_url: 'https://rpc.example/key',
      confirmations: 0,
      fee_wallet: FACTORY_A,
      poll_interval_ms: 250,
      max_block_range: 500,
      use_finalized_tag: true,
      sweep_batch_max: 3,
    }).load();
    expect(tuned.network(31337)?.chain).toMatchObject({ confirmations: 0, feeWallet: FACTORY_A, pollIntervalMs: 250, maxBlockRange: 500, useFinalizedTag: true, sweepBatchMax: 3 });
  });

  it('a network without rpc_url is not live', () => {
    expect(load({}).load().network(31337)?.chain).toBeUndefined();
  });

  it('rpc_url never appears in the public network list', () => {
    const catalogue = load({ rpc_url: 'https://rpc.example/secret-key', confirmations: 2 }).load();
    const text = JSON.stringify(catalogue.publicNetworks());
    expect(text).not.toContain('rpc');
    expect(text).not.toContain('secret-key');
    expect(text).not.toContain('confirmations');
  });

  it.each([
    ['rpc_url is an http(s) URL', { rpc_url: 'ws://x' }, '.rpc_url: must be an http(s) URL'],
    ['a live network needs main_factory', { rpc_url: 'http://x', main_factory: '' }, '.main_factory: must be set on a network with rpc_url'],
    ['a live network needs invoice_factory', { rpc_url: 'http://x', invoice_factory: '' }, '.invoice_factory: must be set on a network with rpc_url'],
    ['confirmations is a non-negative integer', { rpc_url: 'http://x', confirmations: -1 }, '.confirmations: must be an integer from 0'],
    ['confirmations needs rpc_url', { confirmations: 2 }, '.confirmations: needs rpc_url'],
    ['fee_wallet is an EVM address', { rpc_url: 'http://x', fee_wallet: '0x12' }, '.fee_wallet: must be an EVM address'],
    ['use_finalized_tag is a boolean', { rpc_url: 'http://x', use_finalized_tag: 'yes' }, '.use_finalized_tag: must be true or false'],
    // Issue 22 item 3 (docs/decisions/0037): sweeps per sweepBatch transaction, 1 sends each alone.
    ['sweep_batch_max is at least 1', { rpc_url: 'http://x', sweep_batch_max: 0 }, '.sweep_batch_max: must be an integer from 1'],
    ['sweep_batch_max is at most 100', { rpc_url: 'http://x', sweep_batch_max: 101 }, '.sweep_batch_max: must be an integer from 1'],
  ])('%s', (_rule, overrides, message) => {
    const text = failure(overrides);
    expect(text).toContain('(chain_id 31337)' + message);
    expect(text).not.toContain('\n');
  });
});
