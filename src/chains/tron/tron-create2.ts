import { keccak256, type Hex } from 'viem';
import { decodeBase58 } from '../base58.js';
import { tronAddressCodec } from './tron-address-codec.js';

/** The byte every TVM address starts with on mainnet and the public test networks (Nile, Shasta). */
const TVM_ADDRESS_PREFIX = 0x41;

/**
 * The address a TVM `CREATE2` gives a contract, computed off chain (issue 23
 * item 1): keccak256(0x41 ‖ deployer ‖ salt ‖ keccak256(init code)), last 20
 * bytes. The EVM's formula with the address prefix in place of 0xff — the rule
 * of java-tron's `WalletUtil.generateContractAddress2`. Since the
 * `allowTvmIstanbul` proposal (on mainnet, Nile and Shasta) the deployer is the
 * creating contract (the factory); before it, the TVM used the caller's
 * address, so a network without that proposal computes other addresses and
 * must not be used.
 */
export function tvmCreate2Address(deployer: Uint8Array, salt: Hex, initCode: Hex): Uint8Array {
  if (deployer.length !== 20) throw new Error(`a TVM deployer is 20 bytes, got ${deployer.length}`);
  const saltBytes = Buffer.from(salt.slice(2), 'hex');
  if (saltBytes.length !== 32) throw new Error(`a CREATE2 salt is 32 bytes, got ${saltBytes.length}`);
  const codeHash = Buffer.from(keccak256(initCode).slice(2), 'hex');
  const hash = keccak256(Buffer.concat([Buffer.from([TVM_ADDRESS_PREFIX]), deployer, saltBytes, codeHash]));
  return Buffer.from(hash.slice(-40), 'hex');
}

/** The same, for a deployer given as a `T…` address, answered as one. */
export function tvmCreate2TronAddress(deployer: string, salt: Hex, initCode: Hex): string {
  const payload = tronAccountBytes(deployer);
  return tronAddressCodec.spellAddress(tvmCreate2Address(payload, salt, initCode));
}

/** The 20 account bytes of a valid `T…` address (after its 0x41 prefix). */
export function tronAccountBytes(address: string): Uint8Array {
  return Buffer.from(tronHexAddress(address).slice(2), 'hex');
}

/** `41…` hex, as the Tron HTTP API writes addresses when `visible` is false. */
export function tronHexAddress(address: string): string {
  const bytes = tronAddressCodec.contractProblem(address) === undefined ? decodeBase58(address) : undefined;
  if (bytes === undefined) throw new Error(`not a Tron address: ${address}`);
  return Buffer.from(bytes.subarray(0, 21)).toString('hex');
}
