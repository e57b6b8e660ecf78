import { readFileSync } from 'node:fs';
import { dirname, extname, resolve } from 'node:path';
import { familyAccess, type AccessSection } from '../chains/index.js';
import { sha256Hex } from '../platform/crypto.js';
import { feeFor, parseBaseUnits, parseDecimalAmount, units18, type FeeTerms } from '../money/index.js';
import { addressCodec, CHAIN_FAMILIES } from '../chains/index.js';
import type { ChainAccess, Eip712Domain, Network, NetworkFamily, SweepTerms, Token, TokenIcon } from './network.js';

/**
 * Reads a catalogue file and checks every rule, so that the rest of Ivory can
 * trust it. Each failure is one line: `Network catalogue <file>: <entry>.<field>: <problem>`.
 *
 * File shape: `{ "networks": [ { chain_id, name, family, native_symbol,
 * explorer_url, main_factory, invoice_factory, start_block, enabled,
 * minimum_payment, terms: { invoice, deposit, sweep_threshold, minimum_sweep,
 * maximum_sweep }, tokens: [ { address, symbol, decimals, status?, icon?,
 * eip712? } ], x402_native_price?,
 * ...access } ] }`, where the access fields are the network's family's
 * (`chains/`: EVM `rpc_url`/`rpc_urls` and tuning; Tron `api_url`, `api_key`,
 * `fee_limit`…; Solana `rpc_url`, `commitment`…); the family's parser reads
 * them into `Network.chain`.
 * Unknown fields are refused: a misspelt optional field would otherwise vanish.
 */

const MAX_TOKEN_DECIMALS = 36;
const MAX_BPS = 10_000;
/** Sweep amounts are compared exactly at the widest precision a token may have. */
const COMPARISON_DECIMALS = MAX_TOKEN_DECIMALS;
const ICON_CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.webp': 'image/webp',
};

/** Operator fields of a live network, every family's (never shown in an API answer); each family refuses the others'. */
const ACCESS_FIELDS: ReadonlySet<string> = new Set(Object.values(familyAccess).flatMap((parser) => parser.fields));
const NETWORK_FIELDS = [
  'chain_id',
  'name',
  'family',
  'native_symbol',
  'explorer_url',
  'main_factory',
  'invoice_factory',
  'start_block',
  'enabled',
  'minimum_payment',
  'terms',
  'tokens',
  'x402_native_price',
  ...ACCESS_FIELDS,
] as const;
const TERMS_FIELDS = ['invoice', 'deposit', 'sweep_threshold', 'minimum_sweep', 'maximum_sweep'] as const;
const FEE_FIELDS = ['bps', 'minimum', 'maximum'] as const;
const TOKEN_FIELDS = ['address', 'symbol', 'decimals', 'status', 'icon', 'eip712'] as const;
const EIP712_FIELDS = ['name', 'version'] as const;

class CatalogueFileError extends Error {
  constructor(file: string, where: string, problem: string) {
    super(`Network catalogue ${file}: ${where}: ${problem}`);
    this.name = 'CatalogueFileError';
  }
}

/** One JSON object under validation, knowing where it sits for error messages. */
class Entry {
  readonly #file: string;
  readonly #where: string;
  readonly #value: Readonly<Record<string, unknown>>;

  constructor(file: string, where: string, value: unknown, allowedFields: readonly string[]) {
    this.#file = file;
    this.#where = where;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) this.fail(undefined, 'must be an object');
    this.#value = value as Record<string, unknown>;
    for (const field of Object.keys(this.#value)) {
      if (!allowedFields.includes(field)) this.fail(field, 'unknown field');
    }
  }

  get where(): string {
    return this.#where;
  }

  /** The object's fields as written in the file. */
  get fields(): Readonly<Record<string, unknown>> {
    return this.#value;
  }

  fail(field: string | undefined, problem: string): never {
    throw new CatalogueFileError(this.#file, field === undefined ? this.#where : `${this.#where}.${field}`, problem);
  }

  has(field: string): boolean {
    return this.#value[field] !== undefined;
  }

  raw(field: string): unknown {
    const value = this.#value[field];
    if (value === undefined) this.fail(field, 'missing');
    return value;
  }

  string(field: string): string {
    const value = this.raw(field);
    if (typeof value !== 'string') this.fail(field, 'must be a string');
    return value;
  }

  nonEmptyString(field: string): string {
    const value = this.string(field);
    if (value.trim() === '') this.fail(field, 'must not be empty');
    return value;
  }

  integer(field: string, minimum: number, maximum: number): number {
    const value = this.raw(field);
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < minimum || value > maximum) {
      this.fail(field, `must be an integer from ${minimum} to ${maximum}`);
    }
    return value;
  }

  boolean(field: string): boolean {
    const value = this.raw(field);
    if (typeof value !== 'boolean') this.fail(field, 'must be true or false');
    return value;
  }

  array(field: string): readonly unknown[] {
    const value = this.raw(field);
    if (!Array.isArray(value)) this.fail(field, 'must be an array');
    return value;
  }

  child(field: string, allowedFields: readonly string[]): Entry {
    return new Entry(this.#file, `${this.#where}.${field}`, this.raw(field), allowedFields);
  }
}

export function readCatalogueFile(file: string): Network[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new CatalogueFileError(file, 'file', `cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new CatalogueFileError(file, 'file', `is not valid JSON (${(error as Error).message})`);
  }

  const root = new Entry(file, 'file', json, ['networks']);
  const networks = root.array('networks').map((value, index) => readNetwork(file, index, value));

  const seen = new Map<number, number>();
  networks.forEach((network, index) => {
    const earlier = seen.get(network.chainId);
    if (earlier !== undefined) {
      throw new CatalogueFileError(file, `networks[${index}].chain_id`, `${network.chainId} repeats networks[${earlier}]`);
    }
    seen.set(network.chainId, index);
  });
  return networks;
}

function readNetwork(file: string, index: number, value: unknown): Network {
  const bare: Entry = new Entry(file, `networks[${index}]`, value, NETWORK_FIELDS);
  const chainId = bare.integer('chain_id', 1, Number.MAX_SAFE_INTEGER);
  // From here on, errors also name the chain, which is how operators know the entry.
  const entry: Entry = new Entry(file, `networks[${index}] (chain_id ${chainId})`, value, NETWORK_FIELDS);

  const family = entry.string('family') as NetworkFamily;
  if (!CHAIN_FAMILIES.includes(family)) entry.fail('family', `must be one of ${CHAIN_FAMILIES.join(', ')}`);

  const explorerUrl = entry.string('explorer_url');
  if (!isWebUrl(explorerUrl)) entry.fail('explorer_url', 'must be an http(s) URL');

  const mainFactory = entry.string('main_factory');
  const invoiceFactory = entry.string('invoice_factory');
  for (const [field, address] of [
    ['main_factory', mainFactory],
    ['invoice_factory', invoiceFactory],
  ] as const) {
    const problem = address === '' ? undefined : addressProblem(family, address);
    if (problem !== undefined) entry.fail(field, `${problem} (or "" while not deployed)`);
  }

  const tokenValues = entry.array('tokens');
  const tokenDrafts = tokenValues.map((tokenValue, tokenIndex) =>
    readToken(new Entry(file, `${entry.where}.tokens[${tokenIndex}]`, tokenValue, TOKEN_FIELDS), family, dirname(file)),
  );
  const seenTokens = new Map<string, number>();
  tokenDrafts.forEach((token, tokenIndex) => {
    const key = addressCodec(family).normalise(token.address);
    const earlier = seenTokens.get(key);
    if (earlier !== undefined) entry.fail(`tokens[${tokenIndex}].address`, `repeats tokens[${earlier}]`);
    seenTokens.set(key, tokenIndex);
  });

  const terms = entry.child('terms', TERMS_FIELDS);
  const fees = { invoice: readFeeTerms(terms.child('invoice', FEE_FIELDS)), deposit: readFeeTerms(terms.child('deposit', FEE_FIELDS)) };
  const sweep = readSweepTerms(terms, tokenDrafts);

  const minimumPayment = entry.string('minimum_payment');
  const tokens = tokenDrafts.map((token, tokenIndex): Token => {
    const units = parseDecimalAmount(minimumPayment, token.decimals);
    if (units === undefined || units === 0n) {
      entry.fail('minimum_payment', `must be a positive decimal token amount that fits ${token.symbol}'s ${token.decimals} decimals`);
    }
    // An invoice of exactly minimum_payment must be creatable (LEDGER "Fees": fee(A) >= A is refused).
    if (feeFor(units, fees.invoice, token.decimals) >= units) {
      entry.fail('minimum_payment', `is not above the invoice fee for tokens[${tokenIndex}] (${token.symbol})`);
    }
    return Object.freeze({ ...token, minimumPayment: units });
  });
  if (tokens.length === 0 && parseDecimalAmount(minimumPayment, COMPARISON_DECIMALS) === undefined) {
    entry.fail('minimum_payment', 'must be a decimal token amount');
  }

  const chain = readChainAccess(entry, family, mainFactory, invoiceFactory);

  let x402NativePrice: string | undefined;
  if (entry.has('x402_native_price')) {
    x402NativePrice = entry.string('x402_native_price');
    const price = parseDecimalAmount(x402NativePrice, COMPARISON_DECIMALS);
    if (price === undefined || price === 0n) entry.fail('x402_native_price', 'must be a positive decimal token amount (whole tokens per native coin)');
  }

  return Object.freeze({
    chainId,
    name: entry.nonEmptyString('name'),
    family,
    nativeSymbol: entry.nonEmptyString('native_symbol'),
    explorerUrl,
    mainFactory,
    invoiceFactory,
    startBlock: entry.integer('start_block', 0, Number.MAX_SAFE_INTEGER),
    enabled: entry.boolean('enabled'),
    minimumPayment,
    fees: Object.freeze(fees),
    sweep,
    tokens: Object.freeze(tokens),
    ...(x402NativePrice === undefined ? {} : { x402NativePrice }),
    chain,
  });
}

/**
 * The operator's access to the network, read by its family's parser
 * (`chains/`), whose complaints become this file's one-line errors. Fields of
 * another family are refused here: one written on the wrong entry would
 * otherwise be silently ignored.
 */
function readChainAccess(entry: Entry, family: NetworkFamily, mainFactory: string, invoiceFactory: string): ChainAccess | undefined {
  const parser = familyAccess[family];
  const foreign = Object.keys(entry.fields).find((field) => ACCESS_FIELDS.has(field) && !parser.fields.includes(field));
  if (foreign !== undefined) entry.fail(foreign, `is not a field of ${family} networks (they take ${parser.fields.join(', ')})`);
  const section: AccessSection = { fields: entry.fields, mainFactory, invoiceFactory, addressProblem: (address) => addressProblem(family, address) };
  return parser.parse(section, (field, problem) => entry.fail(field, problem));
}

type TokenDraft = Omit<Token, 'minimumPayment'>;

function readToken(entry: Entry, family: NetworkFamily, baseDirectory: string): TokenDraft {
  const address = entry.string('address');
  const problem = addressProblem(family, address);
  if (problem !== undefined) entry.fail('address', problem);

  let ready = false;
  if (entry.has('status')) {
    if (entry.raw('status') !== 'ready') entry.fail('status', 'must be "ready" or absent');
    ready = true;
  }

  return {
    address,
    symbol: entry.nonEmptyString('symbol'),
    decimals: entry.integer('decimals', 0, MAX_TOKEN_DECIMALS),
    ready,
    icon: entry.has('icon') ? readIcon(entry, baseDirectory) : undefined,
    ...(entry.has('eip712') ? { eip712: readEip712(entry.child('eip712', EIP712_FIELDS)) } : {}),
  };
}

/** `eip712: {name, version}`: the strings the token's EIP-712 domain hashes (a wrong one makes every signature fail). */
function readEip712(entry: Entry): Eip712Domain {
  return Object.freeze({ name: entry.nonEmptyString('name'), version: entry.nonEmptyString('version') });
}

function readIcon(entry: Entry, baseDirectory: string): TokenIcon {
  const name = entry.nonEmptyString('icon');
  const contentType = ICON_CONTENT_TYPES[extname(name).toLowerCase()];
  if (contentType === undefined) entry.fail('icon', `must end in one of ${Object.keys(ICON_CONTENT_TYPES).join(', ')}`);
  let bytes: Buffer;
  try {
    bytes = readFileSync(resolve(baseDirectory, name));
  } catch (error) {
    entry.fail('icon', `${name} cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  if (bytes.length === 0) entry.fail('icon', `${name} is empty`);
  return Object.freeze({ bytes, contentType, hash: sha256Hex(bytes) });
}

function readFeeTerms(entry: Entry): FeeTerms {
  const bps = entry.integer('bps', 0, MAX_BPS);
  const minimum = parseBaseUnits(entry.string('minimum'));
  if (minimum === undefined) entry.fail('minimum', 'must be an integer string in 18-decimal units');
  const maximum = parseBaseUnits(entry.string('maximum'));
  if (maximum === undefined) entry.fail('maximum', 'must be an integer string in 18-decimal units');
  if (minimum > maximum) entry.fail('minimum', 'must not exceed maximum');
  return Object.freeze({ bps, minimum: units18(minimum), maximum: units18(maximum) });
}

function readSweepTerms(entry: Entry, tokens: readonly TokenDraft[]): SweepTerms {
  const fields = ['minimum_sweep', 'sweep_threshold', 'maximum_sweep'] as const;
  const [minimum, threshold, maximum] = fields.map((field) => {
    const text = entry.string(field);
    const comparable = parseDecimalAmount(text, COMPARISON_DECIMALS);
    if (comparable === undefined) entry.fail(field, 'must be a decimal token amount');
    for (const token of tokens) {
      if (parseDecimalAmount(text, token.decimals) === undefined) {
        entry.fail(field, `has more decimals than ${token.symbol}'s ${token.decimals}`);
      }
    }
    return { text, comparable };
  }) as [SweepAmount, SweepAmount, SweepAmount];
  if (minimum.comparable > threshold.comparable || threshold.comparable > maximum.comparable) {
    entry.fail('sweep_threshold', 'must lie between minimum_sweep and maximum_sweep');
  }
  return Object.freeze({ sweepThreshold: threshold.text, minimumSweep: minimum.text, maximumSweep: maximum.text });
}

interface SweepAmount {
  text: string;
  comparable: bigint;
}

/** Why `address` is not a valid address of the family, or undefined when it is: the family's codec decides. */
function addressProblem(family: NetworkFamily, address: string): string | undefined {
  return addressCodec(family).contractProblem(address);
}

function isWebUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}
