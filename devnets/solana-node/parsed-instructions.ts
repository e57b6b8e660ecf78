// `jsonParsed` instructions as a validator gives them for the System, SPL Token (and Token-2022,
// which shares the base instructions) and associated token account programs; any other program,
// and any instruction of these not listed here, keeps Solana's partially decoded form. Multisig
// authorities are not parsed (the instruction stays partially decoded).

import { getBase58Decoder } from '@solana/kit';
import { TOKEN_2022_PROGRAM, TOKEN_PROGRAM, uiTokenAmount } from './token-layout.js';

const SYSTEM_PROGRAM = '11111111111111111111111111111111';
const ASSOCIATED_TOKEN_PROGRAM = 'ATokenGPvbdGVxr1b2hvZbsiqW5xSW5yGKqBsxFn7Bp';

interface Instruction {
  programId: string;
  accounts: string[];
  data: Uint8Array;
}

type Info = Record<string, unknown>;

function u64(data: Uint8Array, offset: number): bigint | undefined {
  return data.length >= offset + 8 ? new DataView(data.buffer, data.byteOffset, data.byteLength).getBigUint64(offset, true) : undefined;
}

function u32(data: Uint8Array, offset: number): number | undefined {
  return data.length >= offset + 4 ? new DataView(data.buffer, data.byteOffset, data.byteLength).getUint32(offset, true) : undefined;
}

function key(data: Uint8Array, offset: number): string | undefined {
  return data.length >= offset + 32 ? getBase58Decoder().decode(data.subarray(offset, offset + 32)) : undefined;
}

/** Every named account present, and every value defined, or nothing. */
function complete(info: Info): Info | undefined {
  return Object.values(info).every((value) => value !== undefined) ? info : undefined;
}

function system({ accounts: [first, second], data }: Instruction): [string, Info | undefined] | undefined {
  switch (u32(data, 0)) {
    case 0:
      return ['createAccount', complete({ source: first, newAccount: second, lamports: u64(data, 4), space: u64(data, 12), owner: key(data, 20) })];
    case 2:
      return ['transfer', complete({ source: first, destination: second, lamports: u64(data, 4) })];
    default:
      return undefined;
  }
}

function token({ accounts, data }: Instruction): [string, Info | undefined] | undefined {
  const [a, b, c, d] = accounts;
  const amount = u64(data, 1);
  const decimals = data[9];
  const checked = amount === undefined || decimals === undefined ? undefined : uiTokenAmount(amount, decimals);
  switch (data[0]) {
    case 3:
      return ['transfer', complete({ source: a, destination: b, authority: c, amount: amount?.toString() })];
    case 7:
      return ['mintTo', complete({ mint: a, account: b, mintAuthority: c, amount: amount?.toString() })];
    case 8:
      return ['burn', complete({ account: a, mint: b, authority: c, amount: amount?.toString() })];
    case 9:
      return ['closeAccount', complete({ account: a, destination: b, owner: c })];
    case 12:
      return ['transferChecked', complete({ source: a, mint: b, destination: c, authority: d, tokenAmount: checked })];
    case 14:
      return ['mintToChecked', complete({ mint: a, account: b, mintAuthority: c, tokenAmount: checked })];
    case 18:
      return ['initializeAccount3', complete({ account: a, mint: b, owner: key(data, 1) })];
    case 20: {
      const freezeAuthority = data[34] === 1 ? key(data, 35) : null;
      return ['initializeMint2', complete({ mint: a, decimals: data[1], mintAuthority: key(data, 2), ...(freezeAuthority === null ? {} : { freezeAuthority }) })];
    }
    case 21:
      return ['getAccountDataSize', complete({ mint: a })];
    case 22:
      return ['initializeImmutableOwner', complete({ account: a })];
    default:
      return undefined;
  }
}

function associatedToken({ accounts: [source, account, wallet, mint, systemProgram, tokenProgram], data }: Instruction): [string, Info | undefined] | undefined {
  const kind = data.length === 0 || data[0] === 0 ? 'create' : data[0] === 1 ? 'createIdempotent' : undefined;
  return kind === undefined ? undefined : [kind, complete({ source, account, wallet, mint, systemProgram, tokenProgram })];
}

const PROGRAMS: Record<string, { name: string; parse: (instruction: Instruction) => [string, Info | undefined] | undefined }> = {
  [SYSTEM_PROGRAM]: { name: 'system', parse: system },
  [TOKEN_PROGRAM]: { name: 'spl-token', parse: token },
  [TOKEN_2022_PROGRAM]: { name: 'spl-token-2022', parse: token },
  [ASSOCIATED_TOKEN_PROGRAM]: { name: 'spl-associated-token-account', parse: associatedToken },
};

/** One instruction in `jsonParsed` form: `{ program, programId, parsed: { type, info } }` when known, else partially decoded. */
export function parsedInstruction(instruction: Instruction, stackHeight: number | null): unknown {
  const program = PROGRAMS[instruction.programId];
  const parsed = program?.parse(instruction);
  if (program !== undefined && parsed !== undefined && parsed[1] !== undefined) {
    return { program: program.name, programId: instruction.programId, parsed: { type: parsed[0], info: parsed[1] }, stackHeight };
  }
  return { programId: instruction.programId, accounts: instruction.accounts, data: getBase58Decoder().decode(instruction.data), stackHeight };
}
