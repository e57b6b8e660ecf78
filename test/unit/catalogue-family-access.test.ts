import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadCatalogue } from '../../src/catalogue/index.js';

// Issue 21 item 3, decision 0028: a network's access is a union by family, each family's
// parser reads its own fields (EVM rpc_url/rpc_urls and tuning; Tron api_url, api_key, fee_limit;
// Solana rpc_url, commitment), and a bad field stops start-up with one line naming the network
// and the field. Families without a running driver (Tron, Solana) are checked all the same.

const root = mkdtempSync(join(tmpdir(), 'ivory-family-access-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

type Json = Record<string, unknown>;
const TERMS = {
  invoice: { bps: 50, minimum: '100000000000000000', maximum: '5000000000000000000' },
  deposit: { bps: 50, minimum: '100000000000000000', maximum: '5000000000000000000' },
  sweep_threshold: '10',
  minimum_sweep: '5',
  maximum_sweep: '1000',
};
const EVM = {
  chain_id: 31337,
  family: 'evm',
  native_symbol: 'ETH',
  main_factory: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
  invoice_factory: '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512',
  tokens: [{ address: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48', symbol: 'USDC', decimals: 6, status: 'ready' }],
};
// Real mainnet addresses, standing in for the factories: the loader checks their form only.
const TRON_USDT = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
const TRON = {
  chain_id: 728126428,
  family: 'tron',
  native_symbol: 'TRX',
  main_factory: 'TEkxiTehnzSmSe2XqrBj4w32RUN966rdz8',
  invoice_factory: TRON_USDT,
  tokens: [{ address: TRON_USDT, symbol: 'USDT', decimals: 6, status: 'ready' }],
};
const SOLANA_USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const SOLANA = {
  chain_id: 900,
  family: 'solana',
  native_symbol: 'SOL',
  main_factory: '',
  invoice_factory: '',
  tokens: [{ address: SOLANA_USDC, symbol: 'USDC', decimals: 6, status: 'ready' }],
};

let counter = 0;
function load(base: Json, overrides: Json) {
  counter += 1;
  const file = join(root, `networks-${counter}.json`);
  const network = { name: 'Net', explorer_url: 'http://localhost', start_block: 0, enabled: true, minimum_payment: '1', terms: TERMS, ...base, ...overrides };
  writeFileSync(file, JSON.stringify({ networks: [network] }));
  return loadCatalogue(file);
}

function failure(base: Json, overrides: Json): string {
  try {
    load(base, overrides);
  } catch (error) {
    return (error as Error).message;
  }
  return '';
}

function expectOneLine(base: Json, overrides: Json, chainId: number, message: string) {
  const text = failure(base, overrides);
  expect(text).toContain(`(chain_id ${chainId})${message}`);
  expect(text).not.toContain('\n');
}

describe('EVM access: rpc_urls beside or instead of rpc_url', () => {
  it('takes rpc_urls alone, and rpc_url first when both are given', () => {
    expect(load(EVM, { rpc_urls: ['https://a.example', 'https://b.example'] }).network(31337)?.chain).toMatchObject({
      family: 'evm',
      rpcUrls: ['https://a.example', 'https://b.example'],
    });
    expect(load(EVM, { rpc_url: 'https://a.example', rpc_urls: ['https://b.example'] }).network(31337)?.chain).toMatchObject({
      rpcUrls: ['https://a.example', 'https://b.example'],
    });
  });

  it('rpc_urls never appears in the public network list', () => {
    const text = JSON.stringify(load(EVM, { rpc_urls: ['https://rpc.example/secret-key'] }).publicNetworks());
    expect(text).not.toContain('secret-key');
  });

  it.each([
    ['rpc_urls is a non-empty array', { rpc_urls: [] }, '.rpc_urls: must be a non-empty array of http(s) URLs'],
    ['rpc_urls is an array', { rpc_urls: 'https://a.example' }, '.rpc_urls: must be a non-empty array of http(s) URLs'],
    ['each of rpc_urls is an http(s) URL', { rpc_urls: ['https://a.example', 'ws://b'] }, '.rpc_urls[1]: must be an http(s) URL'],
    ['each URL once', { rpc_url: 'https://a.example', rpc_urls: ['https://a.example'] }, '.rpc_urls[0]: repeats an earlier URL'],
    ['rpc_urls makes the network live, so it needs the factories', { rpc_urls: ['https://a.example'], main_factory: '' }, '.main_factory: must be set on a network with rpc_url'],
    ['a Tron field on an EVM entry', { rpc_url: 'https://a.example', api_key: 'k' }, '.api_key: is not a field of evm networks'],
  ])('%s', (_rule, overrides, message) => expectOneLine(EVM, overrides, 31337, message));
});

describe('Tron access (issue 23 "Operator path")', () => {
  it('reads api_url, api_key and tuning, with defaults', () => {
    expect(load(TRON, { api_url: 'http://127.0.0.1:8090' }).network(728126428)?.chain).toEqual({
      family: 'tron',
      apiUrl: 'http://127.0.0.1:8090',
      apiKey: undefined,
      confirmations: 0,
      feeLimitSun: 100_000_000,
      feeWallet: undefined,
      pollIntervalMs: 1_000,
      maxBlockRange: 2_000,
    });
    const tuned = load(TRON, {
      api_url: 'https://api.trongrid.io',
      api_key: 'secret-key',
      confirmations: 1,
      fee_limit: 50_000_000,
      fee_wallet: TRON_USDT,
      poll_interval_ms: 1_000,
      max_block_range: 100,
    });
    expect(tuned.network(728126428)?.chain).toMatchObject({ apiKey: 'secret-key', confirmations: 1, feeLimitSun: 50_000_000, feeWallet: TRON_USDT, pollIntervalMs: 1_000, maxBlockRange: 100 });
    const text = JSON.stringify(tuned.publicNetworks());
    expect(text).not.toContain('trongrid');
    expect(text).not.toContain('secret-key');
  });

  it('a Tron network without api_url has no access', () => {
    expect(load(TRON, {}).network(728126428)?.chain).toBeUndefined();
  });

  it.each([
    ['api_url is an http(s) URL', { api_url: 'grpc://x' }, '.api_url: must be an http(s) URL'],
    ['api_key is a string', { api_url: 'http://x', api_key: 7 }, '.api_key: must be a string'],
    ['api_key is not empty', { api_url: 'http://x', api_key: ' ' }, '.api_key: must not be empty'],
    ['fee_limit is a positive integer of sun', { api_url: 'http://x', fee_limit: 0 }, '.fee_limit: must be an integer from 1 to 15000000000'],
    ['fee_limit is at most the network ceiling', { api_url: 'http://x', fee_limit: 15_000_000_001 }, '.fee_limit: must be an integer from 1'],
    ['confirmations is a non-negative integer', { api_url: 'http://x', confirmations: 1.5 }, '.confirmations: must be an integer from 0'],
    ['fee_wallet is a Tron address', { api_url: 'http://x', fee_wallet: '0x5FbDB2315678afecb367f032d93F642f64180aa3' }, '.fee_wallet: must be a Tron base58check address'],
    ['a live network needs main_factory', { api_url: 'http://x', main_factory: '' }, '.main_factory: must be set on a network with api_url'],
    ['a live network needs invoice_factory', { api_url: 'http://x', invoice_factory: '' }, '.invoice_factory: must be set on a network with api_url'],
    ['api_key needs api_url', { api_key: 'k' }, '.api_key: needs api_url'],
    ['fee_limit needs api_url', { fee_limit: 1 }, '.fee_limit: needs api_url'],
    ['rpc_url is not a Tron field', { rpc_url: 'http://x' }, '.rpc_url: is not a field of tron networks (they take api_url'],
  ])('%s', (_rule, overrides, message) => expectOneLine(TRON, overrides, 728126428, message));
});

describe('Solana access (issue 24 "Operator path")', () => {
  it('reads rpc_url and commitment (finalized by default); no factory needed', () => {
    expect(load(SOLANA, { rpc_url: 'http://127.0.0.1:8899' }).network(900)?.chain).toEqual({
      family: 'solana',
      rpcUrl: 'http://127.0.0.1:8899',
      commitment: 'finalized',
      feeWallet: undefined,
      pollIntervalMs: 1_000,
    });
    const tuned = load(SOLANA, { rpc_url: 'https://rpc.example/secret-key', commitment: 'confirmed', fee_wallet: SOLANA_USDC, poll_interval_ms: 400 });
    expect(tuned.network(900)?.chain).toMatchObject({ commitment: 'confirmed', feeWallet: SOLANA_USDC, pollIntervalMs: 400 });
    expect(JSON.stringify(tuned.publicNetworks())).not.toContain('secret-key');
  });

  it('a Solana network without rpc_url has no access', () => {
    expect(load(SOLANA, {}).network(900)?.chain).toBeUndefined();
  });

  it.each([
    ['rpc_url is an http(s) URL', { rpc_url: 'ws://x' }, '.rpc_url: must be an http(s) URL'],
    ['commitment is confirmed or finalized', { rpc_url: 'http://x', commitment: 'processed' }, '.commitment: must be one of confirmed, finalized'],
    ['fee_wallet is a Solana address', { rpc_url: 'http://x', fee_wallet: 'T' }, '.fee_wallet: must be a Solana base58 address'],
    ['poll_interval_ms is an integer in range', { rpc_url: 'http://x', poll_interval_ms: 1 }, '.poll_interval_ms: must be an integer from 50 to 600000'],
    ['commitment needs rpc_url', { commitment: 'confirmed' }, '.commitment: needs rpc_url'],
    ['rpc_urls is not a Solana field', { rpc_url: 'http://x', rpc_urls: ['http://y'] }, '.rpc_urls: is not a field of solana networks'],
    ['use_finalized_tag is not a Solana field', { use_finalized_tag: true }, '.use_finalized_tag: is not a field of solana networks'],
  ])('%s', (_rule, overrides, message) => expectOneLine(SOLANA, overrides, 900, message));
});
