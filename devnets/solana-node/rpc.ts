// Solana JSON-RPC 2.0 over the chain: the methods of issue 24 item 3, in the shapes a validator
// answers (results wrapped in `{ context, value }` where Solana wraps them; errors with Solana's
// codes: -32602 invalid params, -32002 failed preflight with its simulation in `data`, -32003 bad
// signature, -32015 unsupported transaction version, -32016 minimum context slot).

import { getBase58Decoder, getBase58Encoder } from '@solana/kit';
import { type AccountState, type Chain, type Commitment, type LandedTransaction, type TokenBalance, type CompiledInstructionRecord } from './chain.js';
import { TOKEN_2022_PROGRAM, readMint, readTokenAccount, uiTokenAmount } from './token-layout.js';
import { parsedInstruction } from './parsed-instructions.js';
import { describeError } from './transaction-errors.js';

const API_VERSION = '2.2.7';
const RENT_EPOCH_EXEMPT = 18446744073709551615n;
const MAX_SIGNATURES = 1000;

class RpcError extends Error {
  constructor(readonly code: number, message: string, readonly data?: unknown) {
    super(message);
  }
}

const invalidParams = (message: string): RpcError => new RpcError(-32602, message);

type Params = unknown[];
type Config = Record<string, unknown>;

function configAt(params: Params, index: number): Config {
  const value = params[index];
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw invalidParams(`Invalid params: expected a configuration object at position ${index}`);
  return value as Config;
}

function stringAt(params: Params, index: number, what: string): string {
  const value = params[index];
  if (typeof value !== 'string') throw invalidParams(`Invalid params: ${what} must be a string`);
  return value;
}

function addressAt(params: Params, index: number): string {
  const value = stringAt(params, index, 'the address');
  let bytes: Uint8Array;
  try {
    bytes = getBase58Encoder().encode(value) as Uint8Array;
  } catch {
    throw invalidParams('Invalid param: Invalid');
  }
  if (bytes.length !== 32) throw invalidParams('Invalid param: WrongSize');
  return value;
}

function commitmentOf(config: Config, fallback: Commitment = 'finalized'): Commitment {
  const commitment = config.commitment ?? fallback;
  if (commitment !== 'processed' && commitment !== 'confirmed' && commitment !== 'finalized') throw invalidParams(`Invalid params: unknown commitment ${String(commitment)}`);
  return commitment;
}

/** Reads of history: Solana refuses `processed` there. */
function historyCommitment(config: Config): Commitment {
  const commitment = commitmentOf(config);
  if (commitment === 'processed') throw invalidParams('Method does not support commitment below `confirmed`');
  return commitment;
}

export class SolanaRpc {
  constructor(private readonly chain: Chain) {}

  /** One JSON-RPC request body in, one response body out; never throws. */
  handle(body: string): string {
    let request: unknown;
    try {
      request = JSON.parse(body);
    } catch {
      return serialize({ jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' }, id: null });
    }
    if (Array.isArray(request)) return serialize(request.map((one) => this.answer(one)));
    return serialize(this.answer(request));
  }

  private answer(request: unknown): unknown {
    const envelope = (typeof request === 'object' && request !== null ? request : {}) as { id?: unknown; method?: unknown; params?: unknown };
    const id = envelope.id ?? null;
    if (typeof envelope.method !== 'string') return { jsonrpc: '2.0', error: { code: -32600, message: 'Invalid request' }, id };
    const params = envelope.params === undefined ? [] : envelope.params;
    try {
      if (!Array.isArray(params)) throw invalidParams('Invalid params: expected an array');
      return { jsonrpc: '2.0', result: this.call(envelope.method, params), id };
    } catch (error) {
      if (error instanceof RpcError) {
        return { jsonrpc: '2.0', error: { code: error.code, message: error.message, ...(error.data === undefined ? {} : { data: error.data }) }, id };
      }
      return { jsonrpc: '2.0', error: { code: -32603, message: `Internal error: ${(error as Error).message}` }, id };
    }
  }

  private context(commitment: Commitment, config: Config): { slot: bigint; apiVersion: string } {
    const slot = this.chain.commitmentSlot(commitment);
    const minContextSlot = config.minContextSlot;
    if (typeof minContextSlot === 'number' && BigInt(minContextSlot) > slot) {
      throw new RpcError(-32016, 'Minimum context slot has not been reached', { contextSlot: slot });
    }
    return { slot, apiVersion: API_VERSION };
  }

  private call(method: string, params: Params): unknown {
    switch (method) {
      case 'getSlot':
      case 'getBlockHeight': {
        const config = configAt(params, 0);
        return this.context(commitmentOf(config), config).slot;
      }
      case 'getLatestBlockhash': {
        const config = configAt(params, 0);
        const context = this.context(commitmentOf(config), config);
        return { context, value: { blockhash: this.chain.blockhashOf(context.slot), lastValidBlockHeight: this.chain.lastValidBlockHeight(context.slot) } };
      }
      case 'isBlockhashValid': {
        const blockhash = stringAt(params, 0, 'the blockhash');
        const config = configAt(params, 1);
        return { context: this.context(commitmentOf(config), config), value: this.chain.isBlockhashValid(blockhash) };
      }
      case 'getBalance': {
        const address = addressAt(params, 0);
        const config = configAt(params, 1);
        const commitment = commitmentOf(config);
        return { context: this.context(commitment, config), value: this.chain.readAccountAt(address, commitment)?.lamports ?? 0n };
      }
      case 'getAccountInfo': {
        const address = addressAt(params, 0);
        const config = configAt(params, 1);
        const commitment = commitmentOf(config);
        return { context: this.context(commitment, config), value: encodeAccount(this.chain.readAccountAt(address, commitment), config, this.decimalsAt(commitment)) };
      }
      case 'getMultipleAccounts': {
        const addresses = params[0];
        if (!Array.isArray(addresses)) throw invalidParams('Invalid params: expected an array of addresses');
        if (addresses.length > 100) throw invalidParams('Too many inputs provided; max 100');
        const config = configAt(params, 1);
        const commitment = commitmentOf(config);
        const context = this.context(commitment, config);
        const decimals = this.decimalsAt(commitment);
        return { context, value: addresses.map((_, index) => encodeAccount(this.chain.readAccountAt(addressAt(addresses, index), commitment), config, decimals)) };
      }
      case 'getTokenAccountBalance': {
        const address = addressAt(params, 0);
        const config = configAt(params, 1);
        const commitment = commitmentOf(config);
        const context = this.context(commitment, config);
        const state = this.chain.readAccountAt(address, commitment);
        if (state === null) throw invalidParams('Invalid param: could not find account');
        const account = readTokenAccount(state.owner, state.data);
        const mintState = account === undefined ? null : this.chain.readAccountAt(account.mint, commitment);
        const mint = mintState === null ? undefined : readMint(mintState.owner, mintState.data);
        if (account === undefined || mint === undefined) throw invalidParams('Invalid param: not a Token account');
        return { context, value: uiTokenAmount(account.amount, mint.decimals) };
      }
      case 'getMinimumBalanceForRentExemption': {
        const size = params[0];
        if (typeof size !== 'number' || !Number.isInteger(size) || size < 0) throw invalidParams('Invalid params: the data length must be a non-negative integer');
        return this.chain.minimumBalanceForRentExemption(BigInt(size));
      }
      case 'getSignaturesForAddress':
        return this.signaturesForAddress(addressAt(params, 0), configAt(params, 1));
      case 'getTransaction':
        return this.transaction(stringAt(params, 0, 'the signature'), configAt(params, 1));
      case 'getSignatureStatuses': {
        const signatures = params[0];
        if (!Array.isArray(signatures)) throw invalidParams('Invalid params: expected an array of signatures');
        if (signatures.length > 256) throw invalidParams('Too many inputs provided; max 256');
        const context = this.context('processed', {});
        return { context, value: signatures.map((_, index) => this.status(stringAt(signatures, index, 'a signature'))) };
      }
      case 'sendTransaction':
        return this.send(stringAt(params, 0, 'the transaction'), configAt(params, 1));
      default:
        throw new RpcError(-32601, 'Method not found');
    }
  }

  private decimalsAt(commitment: Commitment): (mint: string) => number | undefined {
    return (mint) => {
      const state = this.chain.readAccountAt(mint, commitment);
      return state === null ? undefined : readMint(state.owner, state.data)?.decimals;
    };
  }

  private status(signature: string): unknown {
    const transaction = this.chain.transaction(signature);
    if (transaction === undefined) return null;
    const confirmationStatus = this.chain.commitmentOf(transaction.slot);
    return {
      slot: transaction.slot,
      confirmations: confirmationStatus === 'finalized' ? null : this.chain.slot - transaction.slot,
      err: transaction.err,
      status: transaction.err === null ? { Ok: null } : { Err: transaction.err },
      confirmationStatus,
    };
  }

  private signaturesForAddress(address: string, config: Config): unknown {
    const commitment = historyCommitment(config);
    const horizon = this.context(commitment, config).slot;
    const limit = config.limit ?? MAX_SIGNATURES;
    if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > MAX_SIGNATURES) throw invalidParams(`Invalid limit; max ${MAX_SIGNATURES}`);
    const newestFirst = this.chain.history(address).filter((transaction) => transaction.slot <= horizon).reverse();
    let start = 0;
    if (typeof config.before === 'string') {
      const index = newestFirst.findIndex((transaction) => transaction.signature === config.before);
      // Solana answers nothing before a signature it does not know.
      if (index === -1) return [];
      start = index + 1;
    }
    const answer = [];
    for (const transaction of newestFirst.slice(start)) {
      if (transaction.signature === config.until || answer.length === limit) break;
      answer.push({
        signature: transaction.signature,
        slot: transaction.slot,
        err: transaction.err,
        memo: null,
        blockTime: transaction.blockTime,
        confirmationStatus: this.chain.commitmentOf(transaction.slot),
      });
    }
    return answer;
  }

  private transaction(signature: string, config: Config): unknown {
    const commitment = historyCommitment(config);
    const encoding = config.encoding ?? 'json';
    if (encoding !== 'json' && encoding !== 'jsonParsed' && encoding !== 'base64' && encoding !== 'base58') throw invalidParams(`Invalid params: unsupported encoding ${String(encoding)}`);
    const transaction = this.chain.transaction(signature);
    if (transaction === undefined || transaction.slot > this.chain.commitmentSlot(commitment)) return null;
    const maxVersion = config.maxSupportedTransactionVersion;
    if (transaction.version === 0 && maxVersion !== 0) {
      throw new RpcError(
        -32015,
        'Transaction version (0) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": 0',
      );
    }
    const parsed = encoding === 'jsonParsed';
    return {
      slot: transaction.slot,
      blockTime: transaction.blockTime,
      ...(maxVersion === undefined ? {} : { version: transaction.version }),
      meta: transactionMeta(transaction, parsed),
      transaction:
        encoding === 'base64'
          ? [Buffer.from(transaction.wire).toString('base64'), 'base64']
          : encoding === 'base58'
            ? [getBase58Decoder().decode(transaction.wire), 'base58']
            : { signatures: transaction.signatures, message: parsed ? parsedMessage(transaction) : jsonMessage(transaction) },
    };
  }

  private send(encoded: string, config: Config): string {
    const encoding = config.encoding ?? 'base58';
    let wire: Uint8Array;
    if (encoding === 'base64') wire = Uint8Array.from(Buffer.from(encoded, 'base64'));
    else if (encoding === 'base58') wire = Uint8Array.from(getBase58Encoder().encode(encoded));
    else throw invalidParams(`Invalid params: unsupported encoding: ${String(encoding)}. Supported encodings: base58, base64`);
    let decoded;
    try {
      decoded = this.chain.decode(wire);
    } catch (error) {
      throw invalidParams(`invalid transaction: ${(error as Error).message}`);
    }
    const preflight = config.skipPreflight !== true;
    if (preflight) this.context(commitmentOf({ commitment: config.preflightCommitment }), config);
    const outcome = this.chain.send(decoded, wire, { preflight });
    if (outcome.kind === 'refused') {
      if (outcome.error === 'SignatureFailure') throw new RpcError(-32003, 'Transaction signature verification failure');
      throw new RpcError(-32002, `Transaction simulation failed: ${describeError(outcome.error)}`, {
        accounts: null,
        err: outcome.error,
        innerInstructions: null,
        loadedAccountsDataSize: 0,
        logs: outcome.logs,
        replacementBlockhash: null,
        returnData: null,
        unitsConsumed: outcome.unitsConsumed,
      });
    }
    return outcome.kind === 'landed' ? outcome.transaction.signature : outcome.signature;
  }
}

function encodeAccount(state: AccountState | null, config: Config, decimalsOf: (mint: string) => number | undefined): unknown {
  if (state === null) return null;
  const encoding = config.encoding ?? 'binary';
  let data = state.data;
  const slice = config.dataSlice as { offset?: unknown; length?: unknown } | undefined;
  if (slice !== undefined && encoding !== 'jsonParsed') {
    if (typeof slice.offset !== 'number' || typeof slice.length !== 'number') throw invalidParams('Invalid params: dataSlice needs offset and length');
    data = data.subarray(slice.offset, slice.offset + slice.length);
  }
  let encoded: unknown;
  if (encoding === 'base64') encoded = [Buffer.from(data).toString('base64'), 'base64'];
  else if (encoding === 'base58') encoded = [getBase58Decoder().decode(data), 'base58'];
  else if (encoding === 'binary') encoded = getBase58Decoder().decode(data);
  else if (encoding === 'jsonParsed') encoded = parsedAccountData(state, decimalsOf) ?? [Buffer.from(data).toString('base64'), 'base64'];
  else throw invalidParams(`Invalid params: unsupported encoding ${String(encoding)}`);
  return { data: encoded, executable: state.executable, lamports: state.lamports, owner: state.owner, rentEpoch: RENT_EPOCH_EXEMPT, space: BigInt(state.data.length) };
}

/** `jsonParsed` account data of a token account or mint (without Token-2022 extensions); undefined for any other account. */
function parsedAccountData(state: AccountState, decimalsOf: (mint: string) => number | undefined): unknown {
  const program = state.owner === TOKEN_2022_PROGRAM ? 'spl-token-2022' : 'spl-token';
  const space = BigInt(state.data.length);
  const mint = readMint(state.owner, state.data);
  if (mint !== undefined) {
    const info = { decimals: mint.decimals, freezeAuthority: mint.freezeAuthority, isInitialized: mint.isInitialized, mintAuthority: mint.mintAuthority, supply: mint.supply.toString() };
    return { program, parsed: { type: 'mint', info }, space };
  }
  const account = readTokenAccount(state.owner, state.data);
  const decimals = account === undefined ? undefined : decimalsOf(account.mint);
  if (account === undefined || decimals === undefined) return undefined;
  const info = {
    isNative: account.isNative !== null,
    mint: account.mint,
    owner: account.owner,
    state: account.state,
    tokenAmount: uiTokenAmount(account.amount, decimals),
    ...(account.delegate === null ? {} : { delegate: account.delegate, delegatedAmount: uiTokenAmount(account.delegatedAmount, decimals) }),
    ...(account.closeAuthority === null ? {} : { closeAuthority: account.closeAuthority }),
    ...(account.isNative === null ? {} : { rentExemptReserve: uiTokenAmount(account.isNative, decimals) }),
  };
  return { program, parsed: { type: 'account', info }, space };
}

function tokenBalancesJson(balances: TokenBalance[]): unknown[] {
  return balances.map((balance) => ({
    accountIndex: balance.accountIndex,
    mint: balance.mint,
    owner: balance.owner,
    programId: balance.programId,
    uiTokenAmount: uiTokenAmount(balance.amount, balance.decimals),
  }));
}

function instructionJson(instruction: CompiledInstructionRecord): unknown {
  return { programIdIndex: instruction.programIdIndex, accounts: instruction.accounts, data: getBase58Decoder().decode(instruction.data), stackHeight: instruction.stackHeight };
}

function instructionParsed(transaction: LandedTransaction, instruction: CompiledInstructionRecord): unknown {
  const programId = transaction.accountKeys[instruction.programIdIndex] ?? '';
  const accounts = instruction.accounts.map((index) => transaction.accountKeys[index] ?? '');
  return parsedInstruction({ programId, accounts, data: instruction.data }, instruction.stackHeight);
}

function transactionMeta(transaction: LandedTransaction, parsed: boolean): unknown {
  return {
    err: transaction.err,
    status: transaction.err === null ? { Ok: null } : { Err: transaction.err },
    fee: transaction.fee,
    preBalances: transaction.preBalances,
    postBalances: transaction.postBalances,
    innerInstructions: transaction.innerInstructions.map((group) => ({
      index: group.index,
      instructions: group.instructions.map((instruction) => (parsed ? instructionParsed(transaction, instruction) : instructionJson(instruction))),
    })),
    logMessages: transaction.logMessages,
    preTokenBalances: tokenBalancesJson(transaction.preTokenBalances),
    postTokenBalances: tokenBalancesJson(transaction.postTokenBalances),
    rewards: [],
    loadedAddresses: { writable: [], readonly: [] },
    computeUnitsConsumed: transaction.computeUnitsConsumed,
  };
}

function jsonMessage(transaction: LandedTransaction): unknown {
  return {
    accountKeys: transaction.accountKeys,
    header: transaction.header,
    recentBlockhash: transaction.recentBlockhash,
    instructions: transaction.instructions.map(instructionJson),
    ...(transaction.version === 0 ? { addressTableLookups: [] } : {}),
  };
}

function parsedMessage(transaction: LandedTransaction): unknown {
  return {
    accountKeys: transaction.accountKeys.map((pubkey, index) => ({ pubkey, signer: transaction.signer[index], source: 'transaction', writable: transaction.writable[index] })),
    recentBlockhash: transaction.recentBlockhash,
    instructions: transaction.instructions.map((instruction) => instructionParsed(transaction, instruction)),
    ...(transaction.version === 0 ? { addressTableLookups: [] } : {}),
  };
}

const BIGINT_MARK = '\u0000bigint:';

/** JSON with bigints as bare numbers, as Solana writes u64 values (lamports, rentEpoch) beyond 2^53. */
export function serialize(value: unknown): string {
  const text = JSON.stringify(value, (_key, item: unknown) => (typeof item === 'bigint' ? `${BIGINT_MARK}${item}` : item));
  return text.replace(/"\\u0000bigint:(-?\d+)"/g, '$1');
}

