// Compiles contracts/src and contracts/test with the solc npm package and writes
//   contracts/artifacts/<Name>.json            one per deployable contract
//   src/chains/evm/contracts/artifacts.json    every contract's creation bytecode, as data the
//                                             program reads at run time (copied into dist/)
//   src/chains/evm/contracts/abis.ts           every contract's ABI, `as const` for viem
// The ABIs stay TypeScript because viem infers function names, arguments and results only from
// an `as const` literal (an imported JSON file types as `string` and `unknown[]`); the bytecode
// is opaque data and lives in JSON. Items that contracts inherit from one Solidity base are
// emitted once and spread into each ABI.
// Output depends only on the sources and the compiler version (sources are read with LF line
// endings, so a CRLF checkout compiles to the same bytes), which is what
// test/chain/contracts-artifacts.test.ts checks.
//
// The TVM build (Tron, issue 23) compiles contracts/src again with the files of contracts/tvm in
// place of their namesakes (the CREATE2 prefix 0x41, a transfer that trusts balances instead of
// return values) for evmVersion "istanbul", and writes contracts/artifacts/tvm/<Name>.json and
// src/chains/tron/contracts/artifacts.json; its ABIs equal the EVM build's (decision 0032).
//
// evmVersion "paris": no PUSH0 (Shanghai) or MCOPY/transient storage (Cancun), so the bytecode
// runs on every EVM chain Ivory may be pointed at, including L2s and sidechains that lag
// behind mainnet forks; anvil's default (later) hardfork runs it unchanged.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import solc from 'solc';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SOURCE_DIRS = ['contracts/src', 'contracts/test'];
export const ARTIFACTS_DIR = 'contracts/artifacts';
export const ARTIFACTS_JSON = 'src/chains/evm/contracts/artifacts.json';
export const ABIS_TS = 'src/chains/evm/contracts/abis.ts';
export const TVM_ARTIFACTS_DIR = 'contracts/artifacts/tvm';
export const TVM_ARTIFACTS_JSON = 'src/chains/tron/contracts/artifacts.json';
const TVM_OVERRIDES_DIR = 'contracts/tvm';

/**
 * ABI items that every contract of a group carries identically (inherited from
 * contracts/src/ForwarderFactory.sol and contracts/test/TestERC20.sol), emitted once and spread
 * into each ABI: viem keeps the element types of a spread `as const` tuple.
 */
const SHARED_ABIS = {
  forwarderFactoryBaseAbi: ['DepositForwarderFactory', 'InvoiceForwarderFactory'],
  testTokenBaseAbi: ['FalseOnSuccessToken', 'FalseReturnToken', 'FeeOnTransferToken', 'NoReturnToken', 'ReentrantToken', 'TestStablecoin'],
  // NoReturnToken's transfer and transferFrom return nothing; the others return a bool.
  testTokenTransferAbi: ['FalseOnSuccessToken', 'FalseReturnToken', 'FeeOnTransferToken', 'ReentrantToken', 'TestStablecoin'],
};

export const SETTINGS = {
  optimizer: { enabled: true, runs: 200 },
  evmVersion: 'paris',
};

/**
 * The TVM's opcodes as of the allowTvmIstanbul proposal (CREATE2 with the deployer's own
 * address, CHAINID, SELFBALANCE); later forks' opcodes (PUSH0, MCOPY, transient storage) exist
 * only behind newer proposals that a Tron network may not have passed (decision 0032).
 */
export const TVM_SETTINGS = {
  optimizer: { enabled: true, runs: 200 },
  evmVersion: 'istanbul',
};

function readSources(root, dirs = SOURCE_DIRS) {
  const sources = {};
  for (const dir of dirs) {
    const names = fs.readdirSync(path.join(root, dir)).filter((name) => name.endsWith('.sol')).sort();
    for (const name of names) {
      const content = fs.readFileSync(path.join(root, dir, name), 'utf8').replace(/\r\n/g, '\n');
      sources[`${dir}/${name}`] = { content };
    }
  }
  return sources;
}

function sha256(text) {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** Deployable contracts (not abstract, not interfaces or libraries) declared in a source's AST. */
function deployableContracts(ast) {
  return ast.nodes
    .filter((node) => node.nodeType === 'ContractDefinition' && node.contractKind === 'contract' && !node.abstract)
    .map((node) => node.name);
}

function camel(name) {
  return name.charAt(0).toLowerCase() + name.slice(1);
}

/**
 * Compiles every source and returns the files to write, as `{ path, content }` with paths
 * relative to the repository root. Throws on any compiler error or warning.
 */
export function compileContracts(root = ROOT) {
  const sources = readSources(root);
  const { version, artifacts } = compileSources(sources, SETTINGS);
  const names = artifacts.map((artifact) => artifact.contractName);
  if (new Set(names).size !== names.length) throw new Error(`duplicate contract names: ${names.join(', ')}`);

  const files = artifacts.map((artifact) => ({
    path: `${ARTIFACTS_DIR}/${artifact.contractName}.json`,
    content: `${JSON.stringify(artifact, null, 2)}\n`,
  }));
  files.push({ path: ARTIFACTS_JSON, content: runtimeArtifacts(artifacts, version, SETTINGS) });
  files.push({ path: ABIS_TS, content: typedAbis(artifacts, version) });

  const tvm = compileTvm(root);
  files.push(
    ...tvm.artifacts.map((artifact) => ({ path: `${TVM_ARTIFACTS_DIR}/${artifact.contractName}.json`, content: `${JSON.stringify(artifact, null, 2)}\n` })),
    { path: TVM_ARTIFACTS_JSON, content: runtimeArtifacts(tvm.artifacts, version, TVM_SETTINGS) },
  );
  return { version, artifacts, tvmArtifacts: tvm.artifacts, files };
}

/**
 * contracts/src for the TVM: a file of contracts/tvm takes the place of the source of the same
 * name, under the same source name, so that imports resolve to it unchanged.
 */
function compileTvm(root) {
  const sources = readSources(root, ['contracts/src']);
  const overrides = readSources(root, [TVM_OVERRIDES_DIR]);
  for (const [name, source] of Object.entries(overrides)) {
    const replaced = `contracts/src/${path.basename(name)}`;
    if (sources[replaced] === undefined) throw new Error(`${name} overrides no file of contracts/src`);
    sources[replaced] = source;
  }
  return compileSources(sources, TVM_SETTINGS);
}

/** Deployable contracts of `sources` compiled with `settings`, sorted by name. */
function compileSources(sources, settings) {
  const input = {
    language: 'Solidity',
    sources,
    settings: {
      ...settings,
      outputSelection: {
        '*': { '': ['ast'], '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object', 'metadata'] },
      },
    },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input)));
  const problems = (output.errors ?? []).filter((error) => error.severity !== 'info');
  if (problems.length > 0) {
    throw new Error(`solc reported:\n${problems.map((error) => error.formattedMessage).join('\n')}`);
  }
  const version = solc.version();

  const artifacts = [];
  for (const sourceName of Object.keys(sources)) {
    for (const contractName of deployableContracts(output.sources[sourceName].ast)) {
      const compiled = output.contracts[sourceName][contractName];
      const metadata = JSON.parse(compiled.metadata);
      const usedSources = Object.fromEntries(
        Object.keys(metadata.sources)
          .sort()
          .map((name) => [name, sha256(sources[name].content)]),
      );
      artifacts.push({
        contractName,
        sourceName,
        compiler: { version, settings },
        sources: usedSources,
        abi: compiled.abi,
        bytecode: `0x${compiled.evm.bytecode.object}`,
        deployedBytecode: `0x${compiled.evm.deployedBytecode.object}`,
      });
    }
  }
  artifacts.sort((a, b) => (a.contractName < b.contractName ? -1 : 1));
  return { version, artifacts };
}

function runtimeArtifacts(artifacts, version, settings) {
  const contracts = Object.fromEntries(
    artifacts.map((artifact) => [artifact.contractName, { bytecode: artifact.bytecode }]),
  );
  const data = { generatedBy: 'scripts/compile-contracts.mjs', compiler: { version, settings }, contracts };
  return `${JSON.stringify(data, null, 2)}\n`;
}

/** One ABI item a line: the file is data for the type checker, not for reading. */
function abiLines(items, indent) {
  return items.map((item) => `${indent}${JSON.stringify(item)},`);
}

function typedAbis(artifacts, version) {
  const byName = new Map(artifacts.map((artifact) => [artifact.contractName, artifact]));
  const lines = [
    '// Generated by scripts/compile-contracts.mjs from contracts/src and contracts/test. Do not edit:',
    '// change the Solidity sources and run `npm run contracts:compile`. The bytecode is in',
    '// artifacts.json.',
    `// solc ${version}, optimizer ${SETTINGS.optimizer.runs} runs, evmVersion ${SETTINGS.evmVersion}.`,
    '',
  ];
  // Each group takes the items all its members carry that no earlier group already took.
  const taken = new Map(artifacts.map((artifact) => [artifact.contractName, { bases: [], items: new Set() }]));
  for (const [constName, contractNames] of Object.entries(SHARED_ABIS)) {
    const missing = contractNames.filter((name) => !byName.has(name));
    if (missing.length > 0) throw new Error(`SHARED_ABIS names ${missing.join(', ')}, which is not compiled`);
    const [first, ...rest] = contractNames.map((name) =>
      byName.get(name).abi.map((item) => JSON.stringify(item)).filter((item) => !taken.get(name).items.has(item)),
    );
    const common = first.filter((item) => rest.every((abi) => abi.includes(item)));
    lines.push(`/** The ABI items shared by ${contractNames.join(', ')}. */`);
    lines.push(`const ${constName} = [`, ...common.map((item) => `  ${item},`), '] as const;', '');
    for (const name of contractNames) {
      taken.get(name).bases.push(constName);
      for (const item of common) taken.get(name).items.add(item);
    }
  }
  for (const artifact of artifacts) {
    const { bases, items } = taken.get(artifact.contractName);
    const own = artifact.abi.filter((item) => !items.has(JSON.stringify(item)));
    lines.push(`/** ${artifact.contractName} (${artifact.sourceName}). */`);
    lines.push(`export const ${camel(artifact.contractName)}Abi = [`);
    lines.push(...bases.map((base) => `  ...${base},`), ...abiLines(own, '  '), '] as const;', '');
  }
  return lines.join('\n');
}

/** Writes the compiled files and removes artifacts of contracts that no longer exist. */
export function writeArtifacts(root = ROOT) {
  const { files } = compileContracts(root);
  const wanted = new Set(files.map((file) => file.path));
  for (const dir of [ARTIFACTS_DIR, TVM_ARTIFACTS_DIR]) {
    fs.mkdirSync(path.join(root, dir), { recursive: true });
    for (const name of fs.readdirSync(path.join(root, dir))) {
      const relative = `${dir}/${name}`;
      if (name.endsWith('.json') && !wanted.has(relative)) fs.rmSync(path.join(root, relative));
    }
  }
  for (const file of files) {
    fs.mkdirSync(path.dirname(path.join(root, file.path)), { recursive: true });
    fs.writeFileSync(path.join(root, file.path), file.content);
  }
  return files;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const files = writeArtifacts();
  for (const file of files) process.stdout.write(`wrote ${file.path}\n`);
}
