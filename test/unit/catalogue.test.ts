import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_CATALOGUE_FILE, loadCatalogue } from '../../src/catalogue/index.js';

const ETHEREUM_USDC = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48';
const SOLANA_USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const TRON_USDT = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
const SPEC_NETWORK_FIELDS = [
  'chain_id',
  'name',
  'native_symbol',
  'explorer_url',
  'main_factory',
  'invoice_factory',
  'start_block',
  'tokens',
  'minimum_payment',
  'family',
].sort();

const temporaryRoot = mkdtempSync(join(tmpdir(), 'ivory-catalogue-'));
afterAll(() => rmSync(temporaryRoot, { recursive: true, force: true }));

type Json = Record<string, unknown>;
let fileCounter = 0;

/** Writes a catalogue (object or raw text) with an `icons/coin.svg` beside it; returns its path. */
function writeCatalogue(content: Json | string): string {
  fileCounter += 1;
  const directory = join(temporaryRoot, `case-${fileCounter}`);
  mkdirSync(join(directory, 'icons'), { recursive: true });
  writeFileSync(join(directory, 'icons', 'coin.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  writeFileSync(join(directory, 'icons', 'empty.svg'), '');
  const file = join(directory, 'networks.json');
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

function aToken(overrides: Json = {}): Json {
  return { address: ETHEREUM_USDC, symbol: 'USDC', decimals: 6, status: 'ready', icon: 'icons/coin.svg', ...overrides };
}

function aNetwork(overrides: Json = {}): Json {
  return {
    chain_id: 1,
    name: 'Ethereum',
    family: 'evm',
    native_symbol: 'ETH',
    explorer_url: 'https://etherscan.io',
    main_factory: '',
    invoice_factory: '',
    start_block: 0,
    enabled: true,
    minimum_payment: '1',
    terms: {
      invoice: { bps: 50, minimum: '100000000000000000', maximum: '5000000000000000000' },
      deposit: { bps: 50, minimum: '100000000000000000', maximum: '5000000000000000000' },
      sweep_threshold: '10',
      minimum_sweep: '5',
      maximum_sweep: '100000',
    },
    tokens: [aToken()],
    ...overrides,
  };
}

function aTronNetwork(tokenOverrides: Json = {}): Json {
  return aNetwork({
    chain_id: 728126428,
    name: 'Tron',
    family: 'tron',
    native_symbol: 'TRX',
    tokens: [aToken({ address: TRON_USDT, symbol: 'USDT', ...tokenOverrides })],
  });
}

function aSolanaNetwork(tokenOverrides: Json = {}): Json {
  return aNetwork({
    chain_id: 900,
    name: 'Solana',
    family: 'solana',
    native_symbol: 'SOL',
    tokens: [aToken({ address: SOLANA_USDC, ...tokenOverrides })],
  });
}

function withTerms(overrides: Json): Json {
  return aNetwork({ terms: { ...(aNetwork().terms as Json), ...overrides } });
}

function withFee(kind: 'invoice' | 'deposit', overrides: Json): Json {
  const terms = aNetwork().terms as Json;
  return withTerms({ [kind]: { ...(terms[kind] as Json), ...overrides } });
}

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

describe('default catalogue', () => {
  const catalogue = loadCatalogue();

  it('loads and validates the bundled file', () => {
    expect(catalogue.file).toBe(DEFAULT_CATALOGUE_FILE);
    expect(catalogue.networks().map((network) => network.chainId)).toEqual([1, 8453, 42161, 10, 137, 56, 728126428, 900]);
  });

  it('SPEC "Network": every public entry has exactly the SPEC fields', () => {
    const networks = catalogue.publicNetworks();
    expect(networks).toHaveLength(8);
    for (const network of networks) {
      expect(Object.keys(network).sort()).toEqual(SPEC_NETWORK_FIELDS);
      for (const token of network.tokens) {
        expect(Object.keys(token).every((key) => ['address', 'symbol', 'decimals', 'status', 'icon_url'].includes(key))).toBe(true);
      }
    }
    expect(networks.find((network) => network.chain_id === 900)?.family).toBe('solana');
    expect(networks.find((network) => network.chain_id === 1)?.family).toBe('evm');
  });

  it('lists a token that is not ready without status (Tron USDC)', () => {
    const tron = catalogue.publicNetworks().find((network) => network.chain_id === 728126428);
    expect(tron?.tokens.find((token) => token.symbol === 'USDC')?.status).toBeUndefined();
    expect(tron?.tokens.find((token) => token.symbol === 'USDT')?.status).toBe('ready');
  });

  it('carries each token’s decimals (BNB Smart Chain stablecoins have 18)', () => {
    expect(catalogue.token(56, '0x55d398326f99059fF775485246999027B3197955')?.decimals).toBe(18);
    expect(catalogue.token(56, '0x55d398326f99059fF775485246999027B3197955')?.minimumPayment).toBe(10n ** 18n);
    expect(catalogue.token(1, ETHEREUM_USDC)?.minimumPayment).toBe(10_000_000n);
  });

  it('finds EVM tokens case-insensitively and base58 tokens exactly', () => {
    expect(catalogue.token(1, ETHEREUM_USDC.toLowerCase())?.symbol).toBe('USDC');
    expect(catalogue.token(900, SOLANA_USDC)?.symbol).toBe('USDC');
    expect(catalogue.token(900, SOLANA_USDC.toLowerCase())).toBeUndefined();
    expect(catalogue.token(728126428, TRON_USDT)?.symbol).toBe('USDT');
    expect(catalogue.token(728126428, TRON_USDT.toLowerCase())).toBeUndefined();
    expect(catalogue.token(1, SOLANA_USDC)).toBeUndefined();
    expect(catalogue.token(999, ETHEREUM_USDC)).toBeUndefined();
  });

  it('serves an icon by its content hash and refuses any other hash', () => {
    const token = catalogue.token(1, ETHEREUM_USDC);
    const hash = token?.icon?.hash ?? '';
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    const icon = catalogue.icon(1, ETHEREUM_USDC.toLowerCase(), hash);
    expect(icon?.contentType).toBe('image/svg+xml');
    expect(icon === undefined ? undefined : sha256(icon.bytes)).toBe(hash);
    expect(icon?.bytes.toString('utf8')).toContain('xmlns="http://www.w3.org/2000/svg"');
    expect(catalogue.icon(1, ETHEREUM_USDC, '0'.repeat(64))).toBeUndefined();
    expect(catalogue.icon(1, ETHEREUM_USDC, hash.toUpperCase())).toBeUndefined();
    expect(catalogue.icon(999, ETHEREUM_USDC, hash)).toBeUndefined();
  });

  it('hashes the bundled SVG bytes', () => {
    const bytes = readFileSync(new URL('../../src/catalogue/icons/usdt.svg', import.meta.url));
    expect(catalogue.token(900, 'Es9vMFrzaCERmJfrF8H2TcgXbXr3ovYdGctv6gm9KXTt')?.icon?.hash).toBe(sha256(bytes));
  });

  it('gives icon paths of the form /token-icons/{chain_id}/{token}/{hash}', () => {
    const hash = catalogue.token(1, ETHEREUM_USDC)?.icon?.hash;
    expect(catalogue.iconPath(1, ETHEREUM_USDC)).toBe(`/token-icons/1/${ETHEREUM_USDC}/${hash}`);
    const ethereum = catalogue.publicNetworks().find((network) => network.chain_id === 1);
    expect(ethereum?.tokens[0]?.icon_url).toBe(`/token-icons/1/${ETHEREUM_USDC}/${hash}`);
    expect(catalogue.iconPath(1, SOLANA_USDC)).toBeUndefined();
  });

  it('gives fee and sweep terms per network', () => {
    expect(catalogue.feeTerms(8453, 'invoice')).toEqual({ bps: 50, minimum: 10n ** 17n, maximum: 5n * 10n ** 18n });
    expect(catalogue.feeTerms(8453, 'deposit')?.bps).toBe(50);
    expect(catalogue.sweepTerms(8453)).toEqual({ sweepThreshold: '10', minimumSweep: '5', maximumSweep: '100000' });
    expect(catalogue.feeTerms(999, 'invoice')).toBeUndefined();
    expect(catalogue.sweepTerms(999)).toBeUndefined();
  });
});

describe('publicNetworks filter (SPEC "Network")', () => {
  it('returns only enabled networks with at least one ready token', () => {
    const file = writeCatalogue({
      networks: [
        aNetwork({ chain_id: 1 }),
        aNetwork({ chain_id: 2, enabled: false }),
        aNetwork({ chain_id: 3, tokens: [aToken({ status: undefined })] }),
        aNetwork({ chain_id: 4, tokens: [] }),
        aNetwork({ chain_id: 5, tokens: [aToken({ status: undefined, icon: undefined }), aToken({ address: '0xdAC17F958D2ee523a2206206994597C13D831ec7', symbol: 'USDT' })] }),
      ],
    });
    const catalogue = loadCatalogue(file);
    expect(catalogue.networks()).toHaveLength(5);
    expect(catalogue.publicNetworks().map((network) => network.chain_id)).toEqual([1, 5]);
    const mixed = catalogue.publicNetworks()[1];
    expect(mixed?.tokens).toHaveLength(2);
    expect(mixed?.tokens[0]).toEqual({ address: ETHEREUM_USDC, symbol: 'USDC', decimals: 6 });
    expect(mixed?.tokens[1]?.status).toBe('ready');
    expect(catalogue.network(2)?.enabled).toBe(false);
  });

  it('resolves icon paths relative to the catalogue file', () => {
    const catalogue = loadCatalogue(writeCatalogue({ networks: [aNetwork()] }));
    const token = catalogue.token(1, ETHEREUM_USDC);
    expect(token?.icon?.hash).toBe(sha256(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>')));
  });

  it('x402 (decision 0035): a token carries its EIP-712 domain only when the file gives one, a network its native price', () => {
    const catalogue = loadCatalogue(
      writeCatalogue({ networks: [aNetwork({ x402_native_price: '2500.5', tokens: [aToken({ eip712: { name: 'USD Coin', version: '2' } })] }), aTronNetwork()] }),
    );
    expect(catalogue.token(1, ETHEREUM_USDC)?.eip712).toEqual({ name: 'USD Coin', version: '2' });
    expect(catalogue.network(1)?.x402NativePrice).toBe('2500.5');
    expect(catalogue.token(728126428, TRON_USDT)?.eip712).toBeUndefined();
    expect(catalogue.network(728126428)?.x402NativePrice).toBeUndefined();
    // Neither shows in GET /networks.
    expect(Object.keys(catalogue.publicNetworks()[0]?.tokens[0] ?? {})).not.toContain('eip712');
  });

  it('accepts valid Tron and Solana entries', () => {
    const catalogue = loadCatalogue(writeCatalogue({ networks: [aTronNetwork(), aSolanaNetwork()] }));
    expect(catalogue.publicNetworks().map((network) => network.family)).toEqual(['tron', 'solana']);
  });
});

interface BadCase {
  rule: string;
  content: Json | string;
  /** What the one-line error must name after the file. */
  names: string;
}

const badCases: BadCase[] = [
  { rule: 'the file is JSON', content: '{"networks": [', names: 'file: is not valid JSON' },
  { rule: 'the top level is an object', content: [] as unknown as Json, names: 'file: must be an object' },
  { rule: 'the top level has networks', content: {}, names: 'file.networks: missing' },
  { rule: 'networks is an array', content: { networks: {} }, names: 'file.networks: must be an array' },
  { rule: 'no unknown top-level field', content: { networks: [], version: 1 }, names: 'file.version: unknown field' },
  { rule: 'a network is an object', content: { networks: [1] }, names: 'networks[0]: must be an object' },
  { rule: 'eip712 is an object', content: { networks: [aNetwork({ tokens: [aToken({ eip712: 'USD Coin' })] })] }, names: 'networks[0] (chain_id 1).tokens[0].eip712: must be an object' },
  { rule: 'eip712 has a name', content: { networks: [aNetwork({ tokens: [aToken({ eip712: { version: '2' } })] })] }, names: 'networks[0] (chain_id 1).tokens[0].eip712.name: missing' },
  { rule: 'eip712 version is not empty', content: { networks: [aNetwork({ tokens: [aToken({ eip712: { name: 'USD Coin', version: '' } })] })] }, names: 'networks[0] (chain_id 1).tokens[0].eip712.version: must not be empty' },
  { rule: 'eip712 has no other field', content: { networks: [aNetwork({ tokens: [aToken({ eip712: { name: 'USD Coin', version: '2', chainId: 1 } })] })] }, names: 'networks[0] (chain_id 1).tokens[0].eip712.chainId: unknown field' },
  { rule: 'x402_native_price is a positive decimal', content: { networks: [aNetwork({ x402_native_price: '0' })] }, names: 'networks[0] (chain_id 1).x402_native_price: must be a positive decimal token amount' },
  { rule: 'x402_native_price is a string', content: { networks: [aNetwork({ x402_native_price: 2500 })] }, names: 'networks[0] (chain_id 1).x402_native_price: must be a string' },
  { rule: 'no unknown network field', content: { networks: [aNetwork({ colour: 'red' })] }, names: 'networks[0].colour: unknown field' },
  { rule: 'chain_id is required', content: { networks: [aNetwork({ chain_id: undefined })] }, names: 'networks[0].chain_id: missing' },
  { rule: 'chain_id is at least 1', content: { networks: [aNetwork({ chain_id: 0 })] }, names: 'networks[0].chain_id: must be an integer' },
  { rule: 'chain_id is an integer', content: { networks: [aNetwork({ chain_id: 1.5 })] }, names: 'networks[0].chain_id: must be an integer' },
  { rule: 'chain_id is a number, not a string', content: { networks: [aNetwork({ chain_id: '1' })] }, names: 'networks[0].chain_id: must be an integer' },
  {
    rule: 'chain_ids are unique',
    content: { networks: [aNetwork(), aNetwork({ name: 'Again' })] },
    names: 'networks[1].chain_id: 1 repeats networks[0]',
  },
  { rule: 'family is evm, tron or solana', content: { networks: [aNetwork({ family: 'cosmos' })] }, names: 'networks[0] (chain_id 1).family: must be one of evm, tron, solana' },
  { rule: 'name is not empty', content: { networks: [aNetwork({ name: ' ' })] }, names: 'networks[0] (chain_id 1).name: must not be empty' },
  { rule: 'native_symbol is required', content: { networks: [aNetwork({ native_symbol: undefined })] }, names: 'networks[0] (chain_id 1).native_symbol: missing' },
  { rule: 'explorer_url is an http(s) URL', content: { networks: [aNetwork({ explorer_url: 'ftp://etherscan.io' })] }, names: 'networks[0] (chain_id 1).explorer_url: must be an http(s) URL' },
  { rule: 'explorer_url parses', content: { networks: [aNetwork({ explorer_url: 'etherscan' })] }, names: 'networks[0] (chain_id 1).explorer_url: must be an http(s) URL' },
  { rule: 'main_factory is an address or ""', content: { networks: [aNetwork({ main_factory: '0x1234' })] }, names: 'networks[0] (chain_id 1).main_factory: must be an EVM address' },
  {
    rule: 'invoice_factory is checksummed',
    content: { networks: [aNetwork({ invoice_factory: ETHEREUM_USDC.toLowerCase() })] },
    names: `networks[0] (chain_id 1).invoice_factory: must be EIP-55 checksummed: ${ETHEREUM_USDC}`,
  },
  { rule: 'start_block is not negative', content: { networks: [aNetwork({ start_block: -1 })] }, names: 'networks[0] (chain_id 1).start_block: must be an integer' },
  { rule: 'enabled is a boolean', content: { networks: [aNetwork({ enabled: 'yes' })] }, names: 'networks[0] (chain_id 1).enabled: must be true or false' },
  { rule: 'minimum_payment is a string', content: { networks: [aNetwork({ minimum_payment: 1 })] }, names: 'networks[0] (chain_id 1).minimum_payment: must be a string' },
  { rule: 'minimum_payment is a decimal amount', content: { networks: [aNetwork({ minimum_payment: '1e3' })] }, names: 'networks[0] (chain_id 1).minimum_payment: must be a positive decimal' },
  { rule: 'minimum_payment is positive', content: { networks: [aNetwork({ minimum_payment: '0' })] }, names: 'networks[0] (chain_id 1).minimum_payment: must be a positive decimal' },
  {
    rule: 'minimum_payment fits the token decimals',
    content: { networks: [aNetwork({ minimum_payment: '1.0000001' })] },
    names: "networks[0] (chain_id 1).minimum_payment: must be a positive decimal token amount that fits USDC's 6 decimals",
  },
  {
    rule: 'minimum_payment is a decimal amount, even with no tokens',
    content: { networks: [aNetwork({ minimum_payment: '-1', tokens: [] })] },
    names: 'networks[0] (chain_id 1).minimum_payment: must be a decimal token amount',
  },
  {
    rule: 'an invoice of minimum_payment is not fee_exceeds_amount',
    content: { networks: [aNetwork({ minimum_payment: '0.1' })] },
    names: 'networks[0] (chain_id 1).minimum_payment: is not above the invoice fee for tokens[0] (USDC)',
  },
  { rule: 'tokens is an array', content: { networks: [aNetwork({ tokens: {} })] }, names: 'networks[0] (chain_id 1).tokens: must be an array' },
  { rule: 'no unknown token field', content: { networks: [aNetwork({ tokens: [aToken({ logo: 'x' })] })] }, names: 'networks[0] (chain_id 1).tokens[0].logo: unknown field' },
  {
    rule: 'EVM token addresses are valid',
    content: { networks: [aNetwork({ tokens: [aToken({ address: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t' })] })] },
    names: 'networks[0] (chain_id 1).tokens[0].address: must be an EVM address',
  },
  {
    rule: 'EVM token addresses are checksummed',
    content: { networks: [aNetwork({ tokens: [aToken({ address: '0xa0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48' })] })] },
    names: `networks[0] (chain_id 1).tokens[0].address: must be EIP-55 checksummed: ${ETHEREUM_USDC}`,
  },
  {
    rule: 'EVM token addresses are not all lower-case',
    content: { networks: [aNetwork({ tokens: [aToken({ address: ETHEREUM_USDC.toLowerCase() })] })] },
    names: 'networks[0] (chain_id 1).tokens[0].address: must be EIP-55 checksummed',
  },
  {
    rule: 'token addresses are unique in a network',
    content: { networks: [aNetwork({ tokens: [aToken(), aToken({ symbol: 'USDC2' })] })] },
    names: 'networks[0] (chain_id 1).tokens[1].address: repeats tokens[0]',
  },
  {
    rule: 'Tron addresses start with T',
    content: { networks: [aTronNetwork({ address: 'AR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t' })] },
    names: 'networks[0] (chain_id 728126428).tokens[0].address: must be a Tron base58check address',
  },
  {
    rule: 'Tron addresses are 34 characters',
    content: { networks: [aTronNetwork({ address: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6' })] },
    names: 'networks[0] (chain_id 728126428).tokens[0].address: must be a Tron base58check address',
  },
  {
    rule: 'Tron addresses carry a valid checksum',
    content: { networks: [aTronNetwork({ address: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6u' })] },
    names: 'networks[0] (chain_id 728126428).tokens[0].address: must be a Tron base58check address',
  },
  {
    rule: 'Tron addresses use the base58 alphabet',
    content: { networks: [aTronNetwork({ address: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj0t' })] },
    names: 'networks[0] (chain_id 728126428).tokens[0].address: must be a Tron base58check address',
  },
  {
    rule: 'Solana mints are base58',
    content: { networks: [aSolanaNetwork({ address: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1O' })] },
    names: 'networks[0] (chain_id 900).tokens[0].address: must be a Solana base58 address',
  },
  {
    rule: 'Solana mints are at least 32 characters',
    content: { networks: [aSolanaNetwork({ address: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4' })] },
    names: 'networks[0] (chain_id 900).tokens[0].address: must be a Solana base58 address',
  },
  {
    rule: 'Solana mints decode to 32 bytes',
    content: { networks: [aSolanaNetwork({ address: 'zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz' })] },
    names: 'networks[0] (chain_id 900).tokens[0].address: must be a Solana base58 address',
  },
  {
    rule: 'Solana token addresses are not EVM addresses',
    content: { networks: [aSolanaNetwork({ address: ETHEREUM_USDC })] },
    names: 'networks[0] (chain_id 900).tokens[0].address: must be a Solana base58 address',
  },
  { rule: 'symbol is not empty', content: { networks: [aNetwork({ tokens: [aToken({ symbol: '' })] })] }, names: 'networks[0] (chain_id 1).tokens[0].symbol: must not be empty' },
  { rule: 'decimals is at most 36', content: { networks: [aNetwork({ tokens: [aToken({ decimals: 37 })] })] }, names: 'networks[0] (chain_id 1).tokens[0].decimals: must be an integer from 0 to 36' },
  { rule: 'decimals is not negative', content: { networks: [aNetwork({ tokens: [aToken({ decimals: -1 })] })] }, names: 'networks[0] (chain_id 1).tokens[0].decimals: must be an integer from 0 to 36' },
  { rule: 'decimals is an integer', content: { networks: [aNetwork({ tokens: [aToken({ decimals: 6.5 })] })] }, names: 'networks[0] (chain_id 1).tokens[0].decimals: must be an integer from 0 to 36' },
  { rule: 'status is "ready" or absent', content: { networks: [aNetwork({ tokens: [aToken({ status: 'live' })] })] }, names: 'networks[0] (chain_id 1).tokens[0].status: must be "ready" or absent' },
  { rule: 'the icon file exists', content: { networks: [aNetwork({ tokens: [aToken({ icon: 'icons/missing.svg' })] })] }, names: 'networks[0] (chain_id 1).tokens[0].icon: icons/missing.svg cannot be read (ENOENT)' },
  { rule: 'the icon is an image type', content: { networks: [aNetwork({ tokens: [aToken({ icon: 'networks.json' })] })] }, names: 'networks[0] (chain_id 1).tokens[0].icon: must end in one of' },
  { rule: 'the icon is not empty', content: { networks: [aNetwork({ tokens: [aToken({ icon: 'icons/empty.svg' })] })] }, names: 'networks[0] (chain_id 1).tokens[0].icon: icons/empty.svg is empty' },
  { rule: 'terms is an object', content: { networks: [aNetwork({ terms: 'cheap' })] }, names: 'networks[0] (chain_id 1).terms: must be an object' },
  { rule: 'no unknown terms field', content: { networks: [withTerms({ refund: {} })] }, names: 'networks[0] (chain_id 1).terms.refund: unknown field' },
  { rule: 'deposit fee terms are required', content: { networks: [withTerms({ deposit: undefined })] }, names: 'networks[0] (chain_id 1).terms.deposit: missing' },
  { rule: 'bps is at most 10000', content: { networks: [withFee('invoice', { bps: 10_001 })] }, names: 'networks[0] (chain_id 1).terms.invoice.bps: must be an integer from 0 to 10000' },
  { rule: 'bps is not negative', content: { networks: [withFee('deposit', { bps: -1 })] }, names: 'networks[0] (chain_id 1).terms.deposit.bps: must be an integer from 0 to 10000' },
  { rule: 'fee minimum is an integer string', content: { networks: [withFee('invoice', { minimum: '0.1' })] }, names: 'networks[0] (chain_id 1).terms.invoice.minimum: must be an integer string' },
  { rule: 'fee maximum has no leading zeros', content: { networks: [withFee('invoice', { maximum: '05' })] }, names: 'networks[0] (chain_id 1).terms.invoice.maximum: must be an integer string' },
  { rule: 'fee bounds are strings, not numbers', content: { networks: [withFee('deposit', { maximum: 5 })] }, names: 'networks[0] (chain_id 1).terms.deposit.maximum: must be a string' },
  {
    rule: 'fee minimum does not exceed maximum',
    content: { networks: [withFee('deposit', { minimum: '6000000000000000000' })] },
    names: 'networks[0] (chain_id 1).terms.deposit.minimum: must not exceed maximum',
  },
  { rule: 'sweep_threshold is a decimal amount', content: { networks: [withTerms({ sweep_threshold: 'ten' })] }, names: 'networks[0] (chain_id 1).terms.sweep_threshold: must be a decimal token amount' },
  {
    rule: 'sweep amounts fit the token decimals',
    content: { networks: [withTerms({ minimum_sweep: '5.0000001' })] },
    names: "networks[0] (chain_id 1).terms.minimum_sweep: has more decimals than USDC's 6",
  },
  {
    rule: 'sweep_threshold lies within its advertised range',
    content: { networks: [withTerms({ sweep_threshold: '4' })] },
    names: 'networks[0] (chain_id 1).terms.sweep_threshold: must lie between minimum_sweep and maximum_sweep',
  },
];

describe('catalogue validation: each rule refuses a bad file with one line naming file, entry and field', () => {
  it('refuses a file that cannot be read', () => {
    const missing = join(temporaryRoot, 'nowhere.json');
    expect(() => loadCatalogue(missing)).toThrow(`Network catalogue ${missing}: file: cannot be read (ENOENT)`);
  });

  it.each(badCases)('$rule', ({ content, names }) => {
    const file = writeCatalogue(content);
    let message = '';
    try {
      loadCatalogue(file);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain(`Network catalogue ${file}: ${names}`);
    expect(message).not.toContain('\n');
  });
});
