import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ARTIFACTS_DIR, TVM_ARTIFACTS_DIR, compileContracts } from '../../scripts/compile-contracts.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

// Issue 9: the compiled artifacts in the repository are exactly what the sources compile to.
describe('committed contract artifacts', () => {
  const compiled = compileContracts(ROOT);

  it.each(compiled.artifacts.map((artifact) => [artifact.contractName, artifact] as const))(
    '%s: committed ABI and bytecode equal a fresh compilation',
    (name, artifact) => {
      const committed = JSON.parse(fs.readFileSync(path.join(ROOT, ARTIFACTS_DIR, `${name}.json`), 'utf8'));
      expect(committed.abi).toEqual(artifact.abi);
      expect(committed.bytecode).toBe(artifact.bytecode);
      expect(committed.deployedBytecode).toBe(artifact.deployedBytecode);
      expect(committed.sources).toEqual(artifact.sources);
    },
  );

  it('every generated file is committed byte for byte, and no stale artifact remains', () => {
    for (const file of compiled.files) {
      expect(fs.readFileSync(path.join(ROOT, file.path), 'utf8'), file.path).toBe(file.content);
    }
    const expected = compiled.artifacts.map((artifact) => `${artifact.contractName}.json`).sort();
    const present = fs.readdirSync(path.join(ROOT, ARTIFACTS_DIR)).filter((name) => name.endsWith('.json')).sort();
    expect(present).toEqual(expected);
    const tvmExpected = compiled.tvmArtifacts.map((artifact) => `${artifact.contractName}.json`).sort();
    expect(fs.readdirSync(path.join(ROOT, TVM_ARTIFACTS_DIR)).filter((name) => name.endsWith('.json')).sort()).toEqual(tvmExpected);
  });

  // Issue 23 item 1: the TVM build is the same contracts with Tron's CREATE2 prefix and a
  // balance-checked transfer, for an Istanbul-level TVM; its ABIs are the EVM build's.
  it('the TVM build compiles the forwarder and both factories for istanbul, with the EVM build\'s ABIs', () => {
    expect(compiled.tvmArtifacts.map((artifact) => artifact.contractName)).toEqual(['DepositForwarderFactory', 'ForwarderImplementation', 'InvoiceForwarderFactory']);
    for (const tvm of compiled.tvmArtifacts) {
      expect(tvm.compiler.settings.evmVersion).toBe('istanbul');
      const evm = compiled.artifacts.find((artifact) => artifact.contractName === tvm.contractName);
      expect(tvm.abi).toEqual(evm?.abi);
      expect(tvm.bytecode).not.toBe(evm?.bytecode);
      expect(Object.keys(tvm.sources)).toEqual(Object.keys(evm?.sources ?? {}));
    }
  });

  it('compiles the forwarder, both factories and the test tokens', () => {
    expect(compiled.artifacts.map((artifact) => artifact.contractName)).toEqual([
      'DepositForwarderFactory',
      'FalseOnSuccessToken',
      'FalseReturnToken',
      'FeeOnTransferToken',
      'ForwarderImplementation',
      'InvoiceForwarderFactory',
      'NoReturnToken',
      'ReentrantToken',
      'TestStablecoin',
      'TestStablecoin3009',
    ]);
  });
});
