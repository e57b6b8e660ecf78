// The compiled contracts, from the two files scripts/compile-contracts.mjs generates: the ABIs
// come `as const` from abis.ts (viem infers function names, arguments and results only from
// literal types), the creation bytecode is data in artifacts.json, read once here; the build
// copies it into dist/ (scripts/copy-assets.mjs).
import { readFileSync } from 'node:fs';
import { isHex, type Hex } from 'viem';

export {
  depositForwarderFactoryAbi,
  falseReturnTokenAbi,
  feeOnTransferTokenAbi,
  forwarderImplementationAbi,
  invoiceForwarderFactoryAbi,
  noReturnTokenAbi,
  reentrantTokenAbi,
  testStablecoin3009Abi,
  testStablecoinAbi,
} from './abis.js';

interface ArtifactsFile {
  readonly contracts: Readonly<Record<string, { readonly bytecode: string } | undefined>>;
}

const { contracts } = JSON.parse(readFileSync(new URL('./artifacts.json', import.meta.url), 'utf8')) as ArtifactsFile;

function bytecodeOf(contractName: string): Hex {
  const bytecode = contracts[contractName]?.bytecode;
  if (bytecode === undefined || bytecode === '0x' || !isHex(bytecode, { strict: true })) {
    throw new Error(`artifacts.json holds no bytecode for ${contractName}: run npm run contracts:compile`);
  }
  return bytecode;
}

export const depositForwarderFactoryBytecode = bytecodeOf('DepositForwarderFactory');
export const forwarderImplementationBytecode = bytecodeOf('ForwarderImplementation');
export const invoiceForwarderFactoryBytecode = bytecodeOf('InvoiceForwarderFactory');
export const testStablecoinBytecode = bytecodeOf('TestStablecoin');
/** The EIP-3009 test token (x402 on the devnet and in tests). */
export const testStablecoin3009Bytecode = bytecodeOf('TestStablecoin3009');
// Test tokens (contracts/test), deployed by test/chain only.
export const falseReturnTokenBytecode = bytecodeOf('FalseReturnToken');
export const feeOnTransferTokenBytecode = bytecodeOf('FeeOnTransferToken');
export const noReturnTokenBytecode = bytecodeOf('NoReturnToken');
export const reentrantTokenBytecode = bytecodeOf('ReentrantToken');
