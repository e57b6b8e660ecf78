import {
  concat,
  createPublicClient,
  createWalletClient,
  defineChain,
  encodeAbiParameters,
  getAddress,
  getContractAddress,
  http,
  isAddress,
  keccak256,
  stringToBytes,
  zeroAddress,
  type Abi,
  type Address,
  type Chain,
  type Hex,
  type PublicClient,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import {
  depositForwarderFactoryAbi,
  depositForwarderFactoryBytecode,
  invoiceForwarderFactoryAbi,
  invoiceForwarderFactoryBytecode,
  testStablecoin3009Abi,
  testStablecoin3009Bytecode,
  testStablecoinAbi,
  testStablecoinBytecode,
} from './artifacts.js';

export {
  depositForwarderFactoryAbi,
  depositForwarderFactoryBytecode,
  forwarderImplementationAbi,
  invoiceForwarderFactoryAbi,
  invoiceForwarderFactoryBytecode,
  testStablecoin3009Abi,
  testStablecoin3009Bytecode,
  testStablecoinAbi,
  testStablecoinBytecode,
} from './artifacts.js';

/**
 * What a forwarder is committed to: the Solidity `Terms` struct, field for field. Token
 * amounts are base units of `token`; `feeMin`/`feeMax` are the catalogue's 18-decimal bounds
 * already converted (floor division). Changing any field changes the forwarder's address.
 */
export type ForwarderTerms = {
  id: Hex;
  token: Address;
  recipient: Address;
  /** New terms take the factory's fee wallet (`readFactoryFeeWallet`); committed terms keep theirs. */
  feeWallet: Address;
  /** `zeroAddress` when the shop has no delegate. */
  delegate: Address;
  /**
   * Invoices (`invoice_factory`): the invoice amount, which the balance must reach (never 0n).
   * Deposits (`main_factory`): the minimum sweep, the smallest balance a sweep may move (the
   * catalogue's `minimum_sweep` in base units); 0n allows any non-zero balance.
   */
  amount: bigint;
  feeMin: bigint;
  feeMax: bigint;
  feeBps: number;
};

const TERMS_PARAMETER = {
  type: 'tuple',
  components: [
    { name: 'id', type: 'bytes32' },
    { name: 'token', type: 'address' },
    { name: 'recipient', type: 'address' },
    { name: 'feeWallet', type: 'address' },
    { name: 'delegate', type: 'address' },
    { name: 'amount', type: 'uint256' },
    { name: 'feeMin', type: 'uint256' },
    { name: 'feeMax', type: 'uint256' },
    { name: 'feeBps', type: 'uint16' },
  ],
} as const;

/** EIP-1167 creation code around the implementation address (the same bytes the factory uses). */
const CLONE_PREFIX: Hex = '0x3d602d80600a3d3981f3363d3d373d3d3d363d73';
const CLONE_SUFFIX: Hex = '0x5af43d82803e903d91602b57fd5bf3';

/**
 * The `id` committed in a forwarder's terms: keccak256 of the issuance id's UTF-8 bytes. Pass
 * the id exactly as stored (PostgreSQL prints UUIDs in lower case); another spelling of the
 * same UUID gives another address.
 */
export function issuanceTermsId(issuanceId: string): Hex {
  return keccak256(stringToBytes(issuanceId));
}

/** The CREATE2 salt: keccak256(abi.encode(terms)). */
export function forwarderSalt(terms: ForwarderTerms): Hex {
  return keccak256(encodeAbiParameters([TERMS_PARAMETER], [terms]));
}

/** The factory's implementation: its first creation, i.e. CREATE of (factory, nonce 1). */
export function forwarderImplementationAddress(factory: Address): Address {
  return getContractAddress({ from: factory, nonce: 1n });
}

/** The EIP-1167 creation code of a forwarder of `implementation` (what CREATE2 hashes). */
export function forwarderCreationCode(implementation: Address): Hex {
  return concat([CLONE_PREFIX, implementation, CLONE_SUFFIX]);
}

/** The forwarder address `factory.predict(terms)` answers, computed without any RPC. */
export function predictForwarderAddress(factory: Address, terms: ForwarderTerms): Address {
  const bytecode = forwarderCreationCode(forwarderImplementationAddress(factory));
  return getContractAddress({ opcode: 'CREATE2', from: factory, salt: forwarderSalt(terms), bytecode });
}

/**
 * The fee wallet a factory was deployed with (its immutable `feeWallet()`): the `feeWallet`
 * Ivory commits in the terms of new forwarders. Returned checksummed.
 */
export async function readFactoryFeeWallet(client: PublicClient, factory: Address): Promise<Address> {
  return getAddress(await client.readContract({ address: factory, abi: depositForwarderFactoryAbi, functionName: 'feeWallet' }));
}

export interface DeployContractsOptions {
  readonly rpcUrl: string;
  /** The deployer's key (`0x` + 64 hex digits); it pays the gas. */
  readonly privateKey: Hex;
  /**
   * Stored in both factories (`feeWallet()`), for the terms of new forwarders. Checked here
   * (any letter case, not the zero address); returned checksummed.
   */
  readonly feeWallet: string;
  /** The factories' owner, allowed to `recover`; defaults to the deployer. */
  readonly owner?: string;
}

/** The catalogue fields of a network, as `ivory contracts deploy` prints them. */
export interface DeployedContracts {
  readonly chainId: number;
  readonly mainFactory: Address;
  readonly invoiceFactory: Address;
  /** Block of the first factory's deployment: where the watcher starts scanning. */
  readonly startBlock: number;
  readonly feeWallet: Address;
  readonly owner: Address;
}

/**
 * Deploys `DepositForwarderFactory` (`main_factory`) then `InvoiceForwarderFactory`
 * (`invoice_factory`), both with `owner` and `feeWallet`, one after the other, each waited
 * for until mined. Throws on an invalid address, an unreachable RPC or a reverted deployment.
 */
export async function deployContracts(options: DeployContractsOptions): Promise<DeployedContracts> {
  const feeWallet = requireAddress(options.feeWallet, 'feeWallet');
  const deployer = await connect(options.rpcUrl, options.privateKey);
  const owner = options.owner === undefined ? deployer.address : requireAddress(options.owner, 'owner');
  const main = await deployer.deploy(depositForwarderFactoryAbi, depositForwarderFactoryBytecode, [owner, feeWallet]);
  const invoice = await deployer.deploy(invoiceForwarderFactoryAbi, invoiceForwarderFactoryBytecode, [owner, feeWallet]);
  return {
    chainId: deployer.chainId,
    mainFactory: main.address,
    invoiceFactory: invoice.address,
    startBlock: main.blockNumber,
    feeWallet,
    owner,
  };
}

/** Deploys a `TestStablecoin` (6 decimals, anyone may mint): local devnets and tests only. */
export async function deployTestStablecoin(options: { rpcUrl: string; privateKey: Hex }): Promise<Address> {
  const deployer = await connect(options.rpcUrl, options.privateKey);
  return (await deployer.deploy(testStablecoinAbi, testStablecoinBytecode, [])).address;
}

/**
 * Deploys a `TestStablecoin3009` (6 decimals, EIP-3009 `transferWithAuthorization`, anyone may
 * mint) whose EIP-712 domain is (`name`, `version`): local devnets and tests only.
 */
export async function deployTestStablecoin3009(options: { rpcUrl: string; privateKey: Hex; name?: string; version?: string }): Promise<Address> {
  const deployer = await connect(options.rpcUrl, options.privateKey);
  return (await deployer.deploy(testStablecoin3009Abi, testStablecoin3009Bytecode, [options.name ?? 'Test USD 3009', options.version ?? '2'])).address;
}

function requireAddress(value: string, field: string): Address {
  if (!isAddress(value, { strict: false }) || value.toLowerCase() === zeroAddress) {
    throw new Error(`${field} must be a non-zero address, got ${JSON.stringify(value)}`);
  }
  return getAddress(value);
}

async function connect(rpcUrl: string, privateKey: Hex) {
  const account = privateKeyToAccount(privateKey);
  const probe = createPublicClient({ transport: http(rpcUrl) });
  const chainId = await probe.getChainId();
  const chain: Chain = defineChain({
    id: chainId,
    name: `EVM chain ${chainId}`,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
  const publicClient = createPublicClient({ chain, transport: http(rpcUrl), pollingInterval: 1_000 });
  const walletClient = createWalletClient({ account, chain, transport: http(rpcUrl) });
  // A network without EIP-1559 (no base fee in its blocks) refuses type-2 transactions: say legacy outright.
  const legacyGas = (await probe.getBlock({ blockTag: 'latest' })).baseFeePerGas == null;
  return {
    chainId,
    address: account.address,
    async deploy(abi: Abi, bytecode: Hex, args: readonly unknown[]): Promise<{ address: Address; blockNumber: number }> {
      const hash = await walletClient.deployContract({ abi, bytecode, args, ...(legacyGas ? { type: 'legacy' as const } : {}) });
      const receipt = await publicClient.waitForTransactionReceipt({ hash });
      if (receipt.status !== 'success' || receipt.contractAddress == null) {
        throw new Error(`deployment ${hash} failed (status ${receipt.status})`);
      }
      return { address: getAddress(receipt.contractAddress), blockNumber: Number(receipt.blockNumber) };
    },
  };
}
