import { Common, Hardfork, Mainnet } from '@ethereumjs/common';
import { EVM, EVMMockBlockchain, NobleBN254, paramsEVM, type Message } from '@ethereumjs/evm';
import type { MerkleStateManager } from '@ethereumjs/statemanager';
import { Address } from '@ethereumjs/util';
import { concat, keccak256, numberToBytes } from 'viem';
import { ADDRESS_PREFIX } from './address.js';

/**
 * The EVM with the TVM's contract addresses. CREATE2 hashes `0x41 ‖ creator ‖ salt ‖
 * keccak256(init_code)` (java-tron's generateContractAddress2 with the 21-byte creator) instead
 * of Ethereum's `0xff` form. A deployment transaction's contract takes java-tron's
 * `keccak256(txID ‖ owner as 21 bytes)`, and a CREATE inside a transaction takes
 * `keccak256(txID ‖ nonce as 8 bytes big-endian)` where the nonce counts the CREATEs of this
 * transaction from 0 (java-tron counts every internal transaction; see README).
 */
export class TronEvm extends EVM {
  /** Set by the executor before each transaction; the root of the address rules above. */
  rootTransactionId: Uint8Array = new Uint8Array(32);
  /** The deployed address of a CreateSmartContract transaction, taken by its top-level frame. */
  deploymentAddress: Uint8Array | undefined;
  private createNonce = 0n;
  /** runCall derives a create's address twice (to warm it, then to create it): answer the same both times. */
  private readonly addresses = new WeakMap<Message, Address>();

  beginTransaction(transactionId: Uint8Array, deploymentAddress: Uint8Array | undefined): void {
    this.rootTransactionId = transactionId;
    this.deploymentAddress = deploymentAddress;
    this.createNonce = 0n;
  }

  protected override async _generateAddress(message: Message): Promise<Address> {
    const known = this.addresses.get(message);
    if (known !== undefined) return known;
    const address = this.tronAddress(message);
    this.addresses.set(message, address);
    return address;
  }

  private tronAddress(message: Message): Address {
    if (message.salt !== undefined) {
      const codeHash = keccak256(message.code as Uint8Array, 'bytes');
      return new Address(tronCreate2Address(message.caller.bytes, message.salt, codeHash));
    }
    if (message.depth === 0 && this.deploymentAddress !== undefined) return new Address(this.deploymentAddress);
    const nonce = this.createNonce++;
    return new Address(keccak256(concat([this.rootTransactionId, numberToBytes(nonce, { size: 8 })]), 'bytes').slice(12));
  }
}

/** keccak256(0x41 ‖ creator(20) ‖ salt(32) ‖ codeHash(32)), last 20 bytes. */
export function tronCreate2Address(creator: Uint8Array, salt: Uint8Array, codeHash: Uint8Array): Uint8Array {
  return keccak256(concat([Uint8Array.of(ADDRESS_PREFIX), creator, salt, codeHash]), 'bytes').slice(12);
}

/** java-tron's address of a deployed contract: keccak256(txID ‖ 0x41 ‖ owner), last 20 bytes. */
export function deploymentAddress(transactionId: Uint8Array, owner: Uint8Array): Uint8Array {
  return keccak256(concat([transactionId, Uint8Array.of(ADDRESS_PREFIX), owner]), 'bytes').slice(12);
}

/**
 * Shanghai's opcodes (PUSH0 included), which the TVM runs. Its prices are brought near the TVM's,
 * which never adopted EIP-2929's cold/warm access: a storage read costs 50 and an account access
 * (CALL, BALANCE, EXTCODESIZE) 40, warm or cold; updating a used slot costs 5,000 and filling an
 * empty one about 20,000. Other prices are Ethereum's (mostly the same as the TVM's).
 */
export function createTronEvm(stateManager: MerkleStateManager): TronEvm {
  const common = new Common({ chain: Mainnet, hardfork: Hardfork.Shanghai });
  const params = {
    ...paramsEVM,
    2929: { ...paramsEVM[2929], coldsloadGas: 50, coldaccountaccessGas: 40, warmstoragereadGas: 40, sstoreCleanEIP2200Gas: 4950 },
  };
  return new TronEvm({ common, stateManager, blockchain: new EVMMockBlockchain(), bn254: new NobleBN254(), params });
}
