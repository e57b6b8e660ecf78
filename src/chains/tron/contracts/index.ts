// The forwarder and factories compiled for the TVM (scripts/compile-contracts.mjs, decision
// 0032): the EVM build's sources and ABIs, Tron's CREATE2 prefix and balance-checked transfers.
import { readFileSync } from 'node:fs';
import { isHex, type Hex } from 'viem';

interface ArtifactsFile {
  readonly contracts: Readonly<Record<string, { readonly bytecode: string } | undefined>>;
}

const { contracts } = JSON.parse(readFileSync(new URL('./artifacts.json', import.meta.url), 'utf8')) as ArtifactsFile;

function bytecodeOf(contractName: string): Hex {
  const bytecode = contracts[contractName]?.bytecode;
  if (bytecode === undefined || !isHex(bytecode, { strict: true }) || bytecode === '0x') {
    throw new Error(`the TVM artifacts hold no bytecode for ${contractName}: run npm run contracts:compile`);
  }
  return bytecode;
}

export const tvmDepositForwarderFactoryBytecode = bytecodeOf('DepositForwarderFactory');
export const tvmInvoiceForwarderFactoryBytecode = bytecodeOf('InvoiceForwarderFactory');
