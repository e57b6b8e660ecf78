// SPL Token and Token-2022 account layouts, read from raw account data (the node computes
// pre/post token balances and jsonParsed answers from them). Token-2022 keeps the base layouts
// and appends extensions after byte 165, marking the kind in byte 165 (1 mint, 2 account).

import { getBase58Decoder } from '@solana/kit';

export const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
export const TOKEN_2022_PROGRAM = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb';

const ACCOUNT_SIZE = 165;
const MINT_SIZE = 82;
const ACCOUNT_TYPE_MINT = 1;
const ACCOUNT_TYPE_ACCOUNT = 2;
const STATES = ['uninitialized', 'initialized', 'frozen'] as const;

export interface TokenAccountLayout {
  mint: string;
  owner: string;
  amount: bigint;
  delegate: string | null;
  state: (typeof STATES)[number];
  /** Rent-exempt reserve of a wrapped-SOL account, null for any other mint. */
  isNative: bigint | null;
  delegatedAmount: bigint;
  closeAuthority: string | null;
}

export interface MintLayout {
  mintAuthority: string | null;
  supply: bigint;
  decimals: number;
  isInitialized: boolean;
  freezeAuthority: string | null;
}

/** One token amount as Solana's RPC answers it (`UiTokenAmount`). */
export interface UiTokenAmount {
  amount: string;
  decimals: number;
  uiAmount: number;
  uiAmountString: string;
}

export function isTokenProgram(owner: string): boolean {
  return owner === TOKEN_PROGRAM || owner === TOKEN_2022_PROGRAM;
}

function kindIs(owner: string, data: Uint8Array, baseSize: number, accountType: number): boolean {
  if (data.length === baseSize) return true;
  return owner === TOKEN_2022_PROGRAM && data.length > ACCOUNT_SIZE && data[ACCOUNT_SIZE] === accountType;
}

function address(data: Uint8Array, offset: number): string {
  return getBase58Decoder().decode(data.subarray(offset, offset + 32));
}

function optionalAddress(data: Uint8Array, offset: number): string | null {
  return readU32(data, offset) === 0 ? null : address(data, offset + 4);
}

function readU32(data: Uint8Array, offset: number): number {
  return new DataView(data.buffer, data.byteOffset, data.byteLength).getUint32(offset, true);
}

function readU64(data: Uint8Array, offset: number): bigint {
  return new DataView(data.buffer, data.byteOffset, data.byteLength).getBigUint64(offset, true);
}

/** The token account held in `data`, or undefined when the account is not an initialized token account. */
export function readTokenAccount(owner: string, data: Uint8Array): TokenAccountLayout | undefined {
  if (!isTokenProgram(owner) || !kindIs(owner, data, ACCOUNT_SIZE, ACCOUNT_TYPE_ACCOUNT)) return undefined;
  const state = STATES[data[108] ?? 0];
  if (state === undefined || state === 'uninitialized') return undefined;
  return {
    mint: address(data, 0),
    owner: address(data, 32),
    amount: readU64(data, 64),
    delegate: optionalAddress(data, 72),
    state,
    isNative: readU32(data, 109) === 0 ? null : readU64(data, 113),
    delegatedAmount: readU64(data, 121),
    closeAuthority: optionalAddress(data, 129),
  };
}

/** The mint held in `data`, or undefined when the account is not an initialized mint. */
export function readMint(owner: string, data: Uint8Array): MintLayout | undefined {
  if (!isTokenProgram(owner) || !kindIs(owner, data, MINT_SIZE, ACCOUNT_TYPE_MINT)) return undefined;
  const isInitialized = data[45] === 1;
  if (!isInitialized) return undefined;
  return {
    mintAuthority: optionalAddress(data, 0),
    supply: readU64(data, 36),
    decimals: data[44] ?? 0,
    isInitialized,
    freezeAuthority: optionalAddress(data, 46),
  };
}

/** `amount` base units as Solana shows them: the decimal string without trailing zeros, and as a float. */
export function uiTokenAmount(amount: bigint, decimals: number): UiTokenAmount {
  const digits = amount.toString().padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, '');
  const uiAmountString = fraction === '' ? whole : `${whole}.${fraction}`;
  return { amount: amount.toString(), decimals, uiAmount: Number(uiAmountString), uiAmountString };
}
