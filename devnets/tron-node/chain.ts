import type { EVMRunCallOpts } from '@ethereumjs/evm';
import { MerkleStateManager } from '@ethereumjs/statemanager';
import { Account, Address } from '@ethereumjs/util';
import { equalBytes, hex } from './address.js';
import { blockId, encodeSignedTransaction, signHeader, transactionRoot, type BlockHeader, type SignedTransaction } from './block.js';
import { createTronEvm, deploymentAddress, type TronEvm } from './evm.js';
import { cloneResources, energyLeft, freeNetLeft, newResources, recovered, type AccountResources } from './resources.js';
import { Serial } from './serial.js';
import { addressOfKey, recoverSigner } from './signature.js';
import type { RawTransaction } from './transaction.js';

export interface ChainParameters {
  /** getEnergyFee: sun burnt per unit of energy. */
  energyFee: bigint;
  /** getTransactionFee: sun burnt per byte of bandwidth beyond the free allowance. */
  transactionFee: bigint;
  /** getMaxFeeLimit: the largest fee_limit a transaction may carry. */
  maxFeeLimit: bigint;
  /** getFreeNetLimit: free bandwidth bytes per account per 24 hours. */
  freeNetLimit: number;
}

export type ContractResult =
  | 'SUCCESS'
  | 'REVERT'
  | 'OUT_OF_ENERGY'
  | 'BAD_JUMP_DESTINATION'
  | 'STACK_TOO_SMALL'
  | 'STACK_TOO_LARGE'
  | 'ILLEGAL_OPERATION'
  | 'UNKNOWN';

export interface Receipt {
  energyUsage: number;
  energyFee: bigint;
  energyUsageTotal: number;
  netUsage: number;
  netFee: bigint;
  /** Absent for TRX transfers, as in java-tron (the enum's default). */
  result?: ContractResult;
}

export interface Log {
  address: Uint8Array;
  topics: Uint8Array[];
  data: Uint8Array;
}

export interface ExecutionInfo {
  transaction: SignedTransaction;
  fee: bigint;
  receipt: Receipt;
  contractResult: Uint8Array;
  contractAddress?: Uint8Array;
  logs: Log[];
  failed: boolean;
  resMessage?: string;
}

export interface Block {
  header: BlockHeader;
  id: Uint8Array;
  idHex: string;
  witnessSignature: Uint8Array;
  transactions: SignedTransaction[];
  infos: ExecutionInfo[];
  stateRoot: Uint8Array;
  resources: Map<string, AccountResources>;
}

export type BroadcastCode =
  | 'SIGERROR'
  | 'TRANSACTION_EXPIRATION_ERROR'
  | 'DUP_TRANSACTION_ERROR'
  | 'CONTRACT_VALIDATE_ERROR'
  | 'TAPOS_ERROR'
  | 'BANDWITH_ERROR'
  | 'OTHER_ERROR';

export type BroadcastOutcome = { accepted: true } | { accepted: false; code: BroadcastCode; message: string };

export interface ConstantCallResult {
  energyUsed: number;
  returnValue: Uint8Array;
  /** The EVM's error ('revert', 'out of gas', …) when the call failed. */
  error?: string;
  logs: Log[];
}

export interface ChainOptions {
  solidLag: number;
  parameters: ChainParameters;
  genesis: { address: Uint8Array; balance: bigint }[];
  witnessKey: Uint8Array;
  now: () => number;
}

/** Most energy a constant call may use, java-tron's default maxEnergyLimitForConstant. */
const CONSTANT_CALL_ENERGY = 100_000_000n;
/** java-tron adds this many bytes of room for the result to every transaction's bandwidth. */
const RESULT_BYTES = 64;
/** The longest a transaction may stay valid after the head block, java-tron's 24 hours. */
const MAXIMUM_TIME_UNTIL_EXPIRATION = 86_400_000;
const BLOCK_VERSION = 32;

/**
 * The chain: accounts and contracts in an EVM state trie, blocks with their post-state roots (so
 * rollback is setStateRoot), the pool of broadcast transactions, and the solidified head. Every
 * entry point runs through one queue.
 */
export class TronChain {
  readonly blocks: Block[] = [];
  readonly pool: SignedTransaction[] = [];
  solidNumber = 0;
  private resources = new Map<string, AccountResources>();
  private readonly serial = new Serial();
  private readonly witnessAddress: Uint8Array;

  private constructor(
    private readonly options: ChainOptions,
    private readonly stateManager: MerkleStateManager,
    private readonly evm: TronEvm,
  ) {
    this.witnessAddress = addressOfKey(options.witnessKey);
  }

  static async create(options: ChainOptions): Promise<TronChain> {
    const stateManager = new MerkleStateManager();
    const chain = new TronChain(options, stateManager, createTronEvm(stateManager));
    const now = options.now();
    for (const { address, balance } of options.genesis) {
      await stateManager.putAccount(new Address(address), new Account(0n, balance));
      chain.resources.set(hex(address), newResources(now));
    }
    const header: BlockHeader = { number: 0, timestamp: now, parentHash: new Uint8Array(32), txTrieRoot: new Uint8Array(32), witnessAddress: chain.witnessAddress, version: BLOCK_VERSION };
    chain.blocks.push(await chain.seal(header, [], []));
    return chain;
  }

  get parameters(): ChainParameters {
    return this.options.parameters;
  }

  head(): Block {
    return this.blocks[this.blocks.length - 1] as Block;
  }

  solid(): Block {
    return this.blocks[this.solidNumber] as Block;
  }

  findTransaction(idHex: string): { block: Block; info: ExecutionInfo; index: number } | undefined {
    for (let number = this.blocks.length - 1; number >= 0; number--) {
      const block = this.blocks[number] as Block;
      const index = block.infos.findIndex((info) => info.transaction.idHex === idHex);
      if (index >= 0) return { block, info: block.infos[index] as ExecutionInfo, index };
    }
    return undefined;
  }

  // ---- reads ------------------------------------------------------------------------------------

  account(address: Uint8Array): Promise<{ balance: bigint; resources?: AccountResources; exists: boolean; isContract: boolean }> {
    return this.serial.run(async () => {
      const state = await this.stateManager.getAccount(new Address(address));
      const resources = this.resources.get(hex(address));
      const code = state === undefined ? new Uint8Array() : await this.stateManager.getCode(new Address(address));
      return { balance: state?.balance ?? 0n, resources, exists: state !== undefined || resources !== undefined, isContract: code.length > 0 };
    });
  }

  /** Runs a call against the head state and throws its changes away. */
  constantCall(owner: Uint8Array, contract: Uint8Array, data: Uint8Array, callValue: bigint): Promise<ConstantCallResult> {
    return this.serial.run(async () => {
      await this.stateManager.checkpoint();
      try {
        this.evm.beginTransaction(new Uint8Array(32), undefined);
        const result = await this.evm.runCall({
          caller: new Address(owner),
          origin: new Address(owner),
          to: new Address(contract),
          data,
          value: callValue,
          gasLimit: CONSTANT_CALL_ENERGY,
          skipBalance: true,
          skipNonceIncrement: true,
          block: this.evmBlock(this.head().header.number + 1, this.options.now()),
        });
        await this.evm.journal.cleanup();
        const error = result.execResult.exceptionError?.error;
        return {
          energyUsed: Number(result.execResult.executionGasUsed),
          returnValue: result.execResult.returnValue,
          error,
          logs: error === undefined ? toLogs(result.execResult.logs) : [],
        };
      } finally {
        await this.stateManager.revert();
      }
    });
  }

  // ---- hooks ------------------------------------------------------------------------------------

  fund(address: Uint8Array, sun: bigint): Promise<void> {
    return this.serial.run(async () => {
      await this.addBalance(address, sun, this.head().header.timestamp);
      // The hook's credit belongs to the head block's state, so a rollback below it undoes it.
      this.head().stateRoot = await this.stateManager.getStateRoot();
      this.head().resources = cloneResources(this.resources);
    });
  }

  grantEnergy(address: Uint8Array, energy: number): Promise<void> {
    return this.serial.run(async () => {
      const key = hex(address);
      const resources = this.resources.get(key) ?? newResources(this.head().header.timestamp);
      resources.energyLimit += energy;
      this.resources.set(key, resources);
      this.head().resources = cloneResources(this.resources);
    });
  }

  /** Drops the blocks above `number`; their transactions go back to the pool when `requeue`. */
  rollback(number: number, requeue: boolean): Promise<void> {
    return this.serial.run(async () => {
      if (number < this.solidNumber) throw new Error(`block ${number} is below the solidified head ${this.solidNumber}`);
      if (number >= this.head().header.number) return;
      const dropped = this.blocks.splice(number + 1);
      const target = this.head();
      await this.stateManager.setStateRoot(target.stateRoot);
      this.resources = cloneResources(target.resources);
      if (requeue) this.pool.unshift(...dropped.flatMap((block) => block.transactions));
    });
  }

  // ---- broadcast --------------------------------------------------------------------------------

  broadcast(transaction: SignedTransaction): Promise<BroadcastOutcome> {
    return this.serial.run(async () => {
      const { raw } = transaction;
      if (this.pool.some((pending) => pending.idHex === transaction.idHex) || this.findTransaction(transaction.idHex) !== undefined) {
        return refuse('DUP_TRANSACTION_ERROR', 'Dup transaction.');
      }
      if (!this.taposHolds(raw)) {
        return refuse('TAPOS_ERROR', `Tapos check error: ref block ${hex(raw.refBlockBytes)} / ${hex(raw.refBlockHash)} is not on this chain.`);
      }
      const headTime = this.head().header.timestamp;
      if (raw.expiration <= headTime || raw.expiration > headTime + MAXIMUM_TIME_UNTIL_EXPIRATION) {
        return refuse('TRANSACTION_EXPIRATION_ERROR', `Transaction expired: expiration ${raw.expiration}, head block time ${headTime}.`);
      }
      const signer = recoverSigner(transaction);
      if (signer === undefined || !equalBytes(signer, raw.contract.owner)) {
        return refuse('SIGERROR', 'Validate signature error: the signature does not recover to the owner_address.');
      }
      const problem = await this.validateContract(raw);
      if (problem !== undefined) return refuse('CONTRACT_VALIDATE_ERROR', `Contract validate error : ${problem}`);
      // java-tron spells this code without the second D.
      if (!(await this.canPayBandwidth(transaction, headTime))) return refuse('BANDWITH_ERROR', 'Account resource insufficient error.');
      this.pool.push(transaction);
      return { accepted: true };
    });
  }

  /** The contract checks broadcast makes, for the builder endpoints; undefined when valid. */
  validate(raw: RawTransaction): Promise<string | undefined> {
    return this.serial.run(() => this.validateContract(raw));
  }

  private async canPayBandwidth(transaction: SignedTransaction, now: number): Promise<boolean> {
    const bytes = bandwidthOf(transaction);
    const owner = transaction.raw.contract.owner;
    if (freeNetLeft(this.resources.get(hex(owner)), this.parameters.freeNetLimit, now) >= bytes) return true;
    return (await this.balanceOf(owner)) >= BigInt(bytes) * this.parameters.transactionFee;
  }

  private taposHolds(raw: RawTransaction): boolean {
    if (raw.refBlockBytes.length !== 2 || raw.refBlockHash.length !== 8) return false;
    const low = ((raw.refBlockBytes[0] as number) << 8) | (raw.refBlockBytes[1] as number);
    return this.blocks.some((block) => (block.header.number & 0xffff) === low && equalBytes(block.id.subarray(8, 16), raw.refBlockHash));
  }

  /** java-tron's contract validation, the part this node models; undefined when valid. */
  private async validateContract(raw: RawTransaction): Promise<string | undefined> {
    const call = raw.contract;
    const owner = await this.stateManager.getAccount(new Address(call.owner));
    const balance = owner?.balance ?? 0n;
    if (call.type === 'TransferContract') {
      if (call.amount <= 0n) return 'Amount must be greater than 0.';
      if (equalBytes(call.owner, call.to)) return 'Cannot transfer TRX to yourself.';
      if (owner === undefined) return 'Validate TransferContract error, no OwnerAccount.';
      if (balance < call.amount) return 'Validate TransferContract error, balance is not sufficient.';
      return undefined;
    }
    if (raw.feeLimit < 0n || raw.feeLimit > this.parameters.maxFeeLimit) return `feeLimit must be >= 0 and <= ${this.parameters.maxFeeLimit}`;
    if (owner === undefined) return 'Validate InternalTransfer error, no OwnerAccount.';
    if (call.type === 'TriggerSmartContract') {
      const code = await this.stateManager.getCode(new Address(call.contract));
      if (code.length === 0) return 'No contract or not a valid smart contract';
      if (balance < call.callValue) return 'Validate InternalTransfer error, balance is not sufficient.';
      return undefined;
    }
    if (!equalBytes(call.owner, call.newContract.originAddress)) return 'OwnerAddress is not equals OriginAddress';
    if (call.newContract.consumeUserResourcePercent < 0n || call.newContract.consumeUserResourcePercent > 100n) return 'percent must be >= 0 and <= 100';
    if (balance < call.newContract.callValue) return 'Validate InternalTransfer error, balance is not sufficient.';
    return undefined;
  }

  // ---- blocks -----------------------------------------------------------------------------------

  /** Produces the next block from the pool, executing its transactions in arrival order. */
  mineBlock(): Promise<Block> {
    return this.serial.run(async () => {
      const parent = this.head();
      const number = parent.header.number + 1;
      const timestamp = Math.max(this.options.now(), parent.header.timestamp + 1);
      const included: SignedTransaction[] = [];
      const infos: ExecutionInfo[] = [];
      for (const transaction of this.pool.splice(0)) {
        if (transaction.raw.expiration <= timestamp) continue;
        if ((await this.validateContract(transaction.raw)) !== undefined) continue;
        const info = await this.execute(transaction, number, timestamp);
        if (info === undefined) continue;
        included.push(transaction);
        infos.push(info);
      }
      const header: BlockHeader = {
        number,
        timestamp,
        parentHash: parent.id,
        txTrieRoot: transactionRoot(included),
        witnessAddress: this.witnessAddress,
        version: BLOCK_VERSION,
      };
      const block = await this.seal(header, included, infos);
      this.blocks.push(block);
      this.solidNumber = Math.max(this.solidNumber, number - this.options.solidLag);
      return block;
    });
  }

  private async seal(header: BlockHeader, transactions: SignedTransaction[], infos: ExecutionInfo[]): Promise<Block> {
    const id = blockId(header);
    return {
      header,
      id,
      idHex: hex(id),
      witnessSignature: signHeader(header, this.options.witnessKey),
      transactions,
      infos,
      stateRoot: await this.stateManager.getStateRoot(),
      resources: cloneResources(this.resources),
    };
  }

  /** Executes one transaction; undefined when it cannot pay its bandwidth (java-tron drops it). */
  private async execute(transaction: SignedTransaction, number: number, timestamp: number): Promise<ExecutionInfo | undefined> {
    const call = transaction.raw.contract;
    const owner = call.owner;
    const ownerResources = this.resources.get(hex(owner)) ?? newResources(timestamp);

    // Bandwidth first, from the free allowance or burnt; a transaction that can no longer pay its
    // bandwidth and value (the balance moved since broadcast) is dropped, as java-tron drops it.
    const bytes = bandwidthOf(transaction);
    const free = freeNetLeft(ownerResources, this.parameters.freeNetLimit, timestamp) >= bytes;
    const netUsage = free ? bytes : 0;
    const netFee = free ? 0n : BigInt(bytes) * this.parameters.transactionFee;
    const value = call.type === 'TransferContract' ? call.amount : call.type === 'TriggerSmartContract' ? call.callValue : call.newContract.callValue;
    if ((await this.balanceOf(owner)) < netFee + value) return undefined;
    this.resources.set(hex(owner), ownerResources);
    ownerResources.latestOperationTime = timestamp;
    if (free) {
      ownerResources.freeNetUsed = recovered(ownerResources.freeNetUsed, ownerResources.freeNetTime, timestamp) + bytes;
      ownerResources.freeNetTime = timestamp;
    }
    if (netFee > 0n) await this.addBalance(owner, -netFee, timestamp);

    if (call.type === 'TransferContract') {
      await this.addBalance(owner, -call.amount, timestamp);
      await this.addBalance(call.to, call.amount, timestamp);
      return {
        transaction,
        fee: netFee,
        receipt: { energyUsage: 0, energyFee: 0n, energyUsageTotal: 0, netUsage, netFee },
        contractResult: new Uint8Array(),
        logs: [],
        failed: false,
      };
    }

    const energyFee = this.parameters.energyFee;
    const staked = energyLeft(ownerResources, timestamp);
    const callValue = value;
    const spendable = (await this.balanceOf(owner)) - callValue;
    const fromBalance = spendable > 0n ? spendable / energyFee : 0n;
    const energyLimit = minBigint(BigInt(staked) + fromBalance, transaction.raw.feeLimit / energyFee);

    const created = call.type === 'CreateSmartContract' ? deploymentAddress(transaction.id, owner) : undefined;
    this.evm.beginTransaction(transaction.id, created);
    const result = await this.evm.runCall({
      caller: new Address(owner),
      origin: new Address(owner),
      to: call.type === 'TriggerSmartContract' ? new Address(call.contract) : undefined,
      data: call.type === 'TriggerSmartContract' ? call.data : call.newContract.bytecode,
      value: callValue,
      gasLimit: energyLimit,
      skipNonceIncrement: true,
      block: this.evmBlock(number, timestamp),
    });
    await this.evm.journal.cleanup();

    const error = result.execResult.exceptionError?.error;
    const energyUsed = Number(result.execResult.executionGasUsed);
    const fromStake = Math.min(energyUsed, staked);
    const burnt = BigInt(energyUsed - fromStake) * energyFee;
    if (fromStake > 0) {
      ownerResources.energyUsed = recovered(ownerResources.energyUsed, ownerResources.energyTime, timestamp) + fromStake;
      ownerResources.energyTime = timestamp;
    }
    if (burnt > 0n) await this.addBalance(owner, -burnt, timestamp);
    const contractResult = contractResultOf(error);
    if (created !== undefined && error === undefined) this.resources.set(hex(created), newResources(timestamp));
    return {
      transaction,
      fee: netFee + burnt,
      receipt: { energyUsage: fromStake, energyFee: burnt, energyUsageTotal: energyUsed, netUsage, netFee, result: contractResult },
      contractResult: created === undefined || error !== undefined ? result.execResult.returnValue : new Uint8Array(),
      contractAddress: created ?? (call.type === 'TriggerSmartContract' ? call.contract : undefined),
      logs: error === undefined ? toLogs(result.execResult.logs) : [],
      failed: error !== undefined,
      resMessage: error === undefined ? undefined : resMessageOf(contractResult, error),
    };
  }

  private evmBlock(number: number, timestamp: number): NonNullable<EVMRunCallOpts['block']> {
    return {
      header: {
        number: BigInt(number),
        coinbase: new Address(this.witnessAddress),
        timestamp: BigInt(Math.floor(timestamp / 1000)),
        difficulty: 0n,
        prevRandao: new Uint8Array(32),
        gasLimit: CONSTANT_CALL_ENERGY,
        baseFeePerGas: 0n,
        slotNumber: 0n,
        getBlobGasPrice: () => undefined,
      },
    } as unknown as NonNullable<EVMRunCallOpts['block']>;
  }

  private async balanceOf(address: Uint8Array): Promise<bigint> {
    return (await this.stateManager.getAccount(new Address(address)))?.balance ?? 0n;
  }

  private async addBalance(address: Uint8Array, delta: bigint, now: number): Promise<void> {
    const key = new Address(address);
    const account = (await this.stateManager.getAccount(key)) ?? new Account();
    account.balance += delta;
    await this.stateManager.putAccount(key, account);
    if (!this.resources.has(hex(address))) this.resources.set(hex(address), newResources(now));
  }
}

/** Bandwidth bytes: the signed transaction's protobuf size plus java-tron's room for its result. */
function bandwidthOf(transaction: SignedTransaction): number {
  return encodeSignedTransaction(transaction).length + RESULT_BYTES;
}

function refuse(code: BroadcastCode, message: string): BroadcastOutcome {
  return { accepted: false, code, message };
}

function minBigint(left: bigint, right: bigint): bigint {
  return left < right ? left : right;
}

function toLogs(logs: [Uint8Array, Uint8Array[], Uint8Array][] | undefined): Log[] {
  return (logs ?? []).map(([address, topics, data]) => ({ address, topics, data }));
}

function contractResultOf(error: string | undefined): ContractResult {
  switch (error) {
    case undefined:
      return 'SUCCESS';
    case 'revert':
      return 'REVERT';
    case 'out of gas':
    case 'code store out of gas':
      return 'OUT_OF_ENERGY';
    case 'invalid JUMP':
      return 'BAD_JUMP_DESTINATION';
    case 'stack underflow':
      return 'STACK_TOO_SMALL';
    case 'stack overflow':
      return 'STACK_TOO_LARGE';
    case 'invalid opcode':
      return 'ILLEGAL_OPERATION';
    default:
      return 'UNKNOWN';
  }
}

function resMessageOf(result: ContractResult, error: string): string {
  if (result === 'OUT_OF_ENERGY') return 'Not enough energy';
  if (result === 'REVERT') return 'REVERT opcode executed';
  return error;
}
