import { describe, expect, it } from 'vitest';
import { addressCodec, CHAIN_FAMILIES, type ChainFamily } from '../../src/chains/index.js';
import { IvoryError } from '../../src/platform/errors.js';

// Issue 21 item 1: each family's address codec parses recipients with the family's SPEC error
// codes ("Errors": invalid_recipient, invalid_tron_address, invalid_tron_checksum,
// invalid_solana_address), checks catalogue addresses, normalises, compares, links and builds
// the wallet payment URI.

const EVM_ADDRESS = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
const TRON_ADDRESS = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
const TRON_ZERO_ACCOUNT = 'T9yD14Nj9j7xAB4dbGeiX9h8unkKHxuWwb';
/** An ed25519 public key (on the curve): a wallet. */
const SOLANA_WALLET = '7Roc5ahCtuQrwfDYfWVciEbWEF6Gi755Moi25J1J2rh';
/** 32 bytes that are no point of the curve: what a program-derived address looks like. */
const SOLANA_OFF_CURVE = '8fV3VkKrDXXfzcoc98N9zkhvVMa3YbRyRnvj4kNzTdn9';
const SOLANA_SYSTEM_PROGRAM = '11111111111111111111111111111111';
const SOLANA_USDC_MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';

/** The code and field details a refused recipient answers with. */
function refusal(family: ChainFamily, raw: string, field = 'address'): { code: string; field: unknown; reason: unknown } {
  try {
    addressCodec(family).parseRecipient(raw, field);
  } catch (error) {
    if (!(error instanceof IvoryError)) throw error;
    return { code: error.code, field: error.details?.field, reason: error.details?.reason };
  }
  throw new Error(`${raw} was accepted as a ${family} recipient`);
}

/** `address` with the letter at `index` in the other case. */
function flipCase(address: string, index: number): string {
  const character = address.charAt(index);
  const flipped = character === character.toUpperCase() ? character.toLowerCase() : character.toUpperCase();
  return address.slice(0, index) + flipped + address.slice(index + 1);
}

describe('EVM address codec', () => {
  const evm = addressCodec('evm');

  it('a recipient round-trips to its EIP-55 form, from mixed case or all lower case', () => {
    expect(evm.parseRecipient(EVM_ADDRESS, 'recipient')).toBe(EVM_ADDRESS);
    expect(evm.parseRecipient(EVM_ADDRESS.toLowerCase(), 'recipient')).toBe(EVM_ADDRESS);
    expect(evm.display(EVM_ADDRESS.toLowerCase())).toBe(EVM_ADDRESS);
  });

  it('refuses a malformed address, a mixed-case typo (EIP-55) and the zero address with invalid_recipient, naming the field', () => {
    expect(refusal('evm', '0x1234', 'delegate')).toEqual({ code: 'invalid_recipient', field: 'delegate', reason: 'must be an EVM address: 0x and 40 hex digits' });
    const typo = flipCase(EVM_ADDRESS, EVM_ADDRESS.indexOf('f'));
    expect(refusal('evm', typo, 'recipient')).toEqual({
      code: 'invalid_recipient',
      field: 'recipient',
      reason: `has a wrong EIP-55 checksum (a typo?): mixed case must match ${EVM_ADDRESS}, or send it all lower case`,
    });
    expect(refusal('evm', `0x${'0'.repeat(40)}`).reason).toBe('must not be the zero address, which burns funds');
  });

  it('a catalogue address must be exactly EIP-55: lower case is told its checksummed form', () => {
    expect(evm.contractProblem(EVM_ADDRESS)).toBeUndefined();
    expect(evm.contractProblem(EVM_ADDRESS.toLowerCase())).toBe(`must be EIP-55 checksummed: ${EVM_ADDRESS}`);
    expect(evm.contractProblem('0xnot')).toBe('must be an EVM address');
  });

  it('normalises to lower case and compares case-blind', () => {
    expect(evm.normalise(EVM_ADDRESS)).toBe(EVM_ADDRESS.toLowerCase());
    expect(evm.same(EVM_ADDRESS, EVM_ADDRESS.toLowerCase())).toBe(true);
    expect(evm.same(EVM_ADDRESS, TRON_ADDRESS)).toBe(false);
  });

  it('links a transaction and an address under /tx/ and /address/, whatever slashes the explorer URL ends with', () => {
    expect(evm.explorerTxUrl('https://basescan.org/', '0xabc')).toBe('https://basescan.org/tx/0xabc');
    expect(evm.explorerAddressUrl('https://basescan.org', EVM_ADDRESS)).toBe(`https://basescan.org/address/${EVM_ADDRESS}`);
  });

  it('the payment URI is EIP-681 with the amount in base units, none for a deposit', () => {
    const request = { chainId: 8453, token: EVM_ADDRESS, tokenDecimals: 6, address: '0x00000000000000000000000000000000000000aa', amount: 2_500_000n };
    expect(evm.paymentUri(request)).toBe(`ethereum:${EVM_ADDRESS}@8453/transfer?address=0x00000000000000000000000000000000000000aa&uint256=2500000`);
    expect(evm.paymentUri({ ...request, amount: null })).toBe(`ethereum:${EVM_ADDRESS}@8453/transfer?address=0x00000000000000000000000000000000000000aa`);
  });
});

describe('Tron address codec', () => {
  const tron = addressCodec('tron');

  it('a recipient round-trips as it is', () => {
    expect(tron.parseRecipient(TRON_ADDRESS, 'address')).toBe(TRON_ADDRESS);
    expect(tron.display(TRON_ADDRESS)).toBe(TRON_ADDRESS);
    expect(tron.contractProblem(TRON_ADDRESS)).toBeUndefined();
  });

  it('a malformed address is invalid_tron_address; a one-character typo is invalid_tron_checksum', () => {
    expect(refusal('tron', 'T123', 'service_wallets.tron')).toEqual({
      code: 'invalid_tron_address',
      field: 'service_wallets.tron',
      reason: 'must be a Tron address: base58check, 34 characters starting with T',
    });
    expect(refusal('tron', EVM_ADDRESS).code).toBe('invalid_tron_address');
    const typo = `${TRON_ADDRESS.slice(0, -1)}u`;
    expect(refusal('tron', typo)).toEqual({ code: 'invalid_tron_checksum', field: 'address', reason: 'has a wrong checksum (a typo?): copy the address again' });
    expect(tron.contractProblem(typo)).toBe('must be a Tron base58check address (34 characters, starting with T)');
  });

  it('refuses the zero account, which burns funds', () => {
    expect(refusal('tron', TRON_ZERO_ACCOUNT)).toEqual({ code: 'invalid_tron_address', field: 'address', reason: 'must not be the zero account, which burns funds' });
  });

  it('base58 is case-significant: compared and normalised as it is', () => {
    expect(tron.normalise(TRON_ADDRESS)).toBe(TRON_ADDRESS);
    expect(tron.same(TRON_ADDRESS, TRON_ADDRESS)).toBe(true);
    expect(tron.same(TRON_ADDRESS, TRON_ADDRESS.toLowerCase())).toBe(false);
  });

  it('links in Tronscan’s fragment routes', () => {
    expect(tron.explorerTxUrl('https://tronscan.org/', 'ab12')).toBe('https://tronscan.org/#/transaction/ab12');
    expect(tron.explorerAddressUrl('https://tronscan.org', TRON_ADDRESS)).toBe(`https://tronscan.org/#/address/${TRON_ADDRESS}`);
  });

  it('the payment URI is the bare address', () => {
    expect(tron.paymentUri({ chainId: 728126428, token: TRON_ADDRESS, tokenDecimals: 6, address: TRON_ZERO_ACCOUNT, amount: 1n })).toBe(TRON_ZERO_ACCOUNT);
  });

  it('spells 20 account bytes as base58check with the 0x41 prefix, which parses back', () => {
    expect(tron.spellAddress(new Uint8Array(20))).toBe(TRON_ZERO_ACCOUNT);
    const spelt = tron.spellAddress(Uint8Array.from({ length: 20 }, (_, index) => index + 1));
    expect(tron.parseRecipient(spelt, 'address')).toBe(spelt);
  });
});

describe('Solana address codec', () => {
  const solana = addressCodec('solana');

  it('a wallet (a key on the ed25519 curve) round-trips as it is', () => {
    expect(solana.parseRecipient(SOLANA_WALLET, 'address')).toBe(SOLANA_WALLET);
    expect(solana.display(SOLANA_WALLET)).toBe(SOLANA_WALLET);
  });

  it('refuses a malformed key, an off-curve key (a program-derived address) and the all-zero System Program with invalid_solana_address', () => {
    expect(refusal('solana', 'not-base58-0OIl')).toEqual({
      code: 'invalid_solana_address',
      field: 'address',
      reason: 'must be a Solana public key: base58, 32 to 44 characters, 32 bytes',
    });
    expect(refusal('solana', SOLANA_OFF_CURVE).reason).toBe(
      'is a program-derived address (off the ed25519 curve), which no private key controls: use a wallet address',
    );
    expect(refusal('solana', SOLANA_SYSTEM_PROGRAM).reason).toBe('must not be the System Program address, which burns funds');
  });

  it('a catalogue mint needs only the shape: 32 bytes, even off the curve', () => {
    expect(solana.contractProblem(SOLANA_USDC_MINT)).toBeUndefined();
    expect(solana.contractProblem(SOLANA_OFF_CURVE)).toBeUndefined();
    expect(solana.contractProblem(TRON_ADDRESS)).toBe('must be a Solana base58 address (32 bytes, 32-44 characters)');
  });

  it('compares as it is and links under /tx/ and /address/', () => {
    expect(solana.same(SOLANA_WALLET, SOLANA_WALLET)).toBe(true);
    expect(solana.normalise(SOLANA_WALLET)).toBe(SOLANA_WALLET);
    expect(solana.explorerTxUrl('https://solscan.io/', 'sig')).toBe('https://solscan.io/tx/sig');
    expect(solana.explorerAddressUrl('https://solscan.io', SOLANA_WALLET)).toBe(`https://solscan.io/address/${SOLANA_WALLET}`);
  });

  it('the payment URI is Solana Pay, the amount in decimal tokens', () => {
    const request = { chainId: 900, token: SOLANA_USDC_MINT, tokenDecimals: 6, address: SOLANA_WALLET, amount: 7_250_000n };
    expect(solana.paymentUri(request)).toBe(`solana:${SOLANA_WALLET}?amount=7.25&spl-token=${SOLANA_USDC_MINT}`);
    expect(solana.paymentUri({ ...request, amount: null })).toBe(`solana:${SOLANA_WALLET}?spl-token=${SOLANA_USDC_MINT}`);
  });

  it('spells 32 bytes as base58, the System Program for zeros', () => {
    expect(solana.spellAddress(new Uint8Array(32))).toBe(SOLANA_SYSTEM_PROGRAM);
  });
});

describe('every family', () => {
  it.each(CHAIN_FAMILIES)('%s: a spelt address is one the catalogue accepts, normalised to a fixed point', (family) => {
    const codec = addressCodec(family);
    expect(codec.family).toBe(family);
    const address = codec.spellAddress(Uint8Array.from({ length: codec.accountBytes }, (_, index) => 200 - index));
    expect(codec.contractProblem(address)).toBeUndefined();
    expect(codec.normalise(codec.normalise(address))).toBe(codec.normalise(address));
    expect(codec.same(address, codec.display(address))).toBe(true);
  });
});
