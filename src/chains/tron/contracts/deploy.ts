import { encodeAbiParameters, keccak256, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { depositForwarderFactoryAbi, invoiceForwarderFactoryAbi } from '../../evm/index.js';
import { createTronApi, type TronApi } from '../tron-api.js';
import { tronAddress, tronWireAddress, tvmAddress } from '../tron-evm-address.js';
import { jsonRpcChainId, transactionInfo } from '../tron-node-reads.js';
import { checkCreate, signTransactionId, transactionId } from '../tron-transaction.js';
import { tvmDepositForwarderFactoryBytecode, tvmInvoiceForwarderFactoryBytecode } from './index.js';

export interface DeployTronContractsOptions {
  readonly apiUrl: string;
  readonly apiKey?: string;
  /** The deployer's key (`0x` + 64 hex digits); it burns the TRX for the deployments' energy. */
  readonly privateKey: Hex;
  /** `T…`: committed by new forwarders. */
  readonly feeWallet: string;
  /** `T…`, allowed to `recover`; defaults to the deployer. */
  readonly owner?: string;
  /** How long to wait for each deployment to be solidified. */
  readonly timeoutMs?: number;
}

/** The catalogue fields of a Tron network, as `ivory contracts deploy --family tron` prints them. */
export interface DeployedTronContracts {
  readonly chainId: number;
  readonly mainFactory: string;
  readonly invoiceFactory: string;
  readonly startBlock: number;
  readonly feeWallet: string;
  readonly owner: string;
}

/** 5,000 TRX: a factory deployment burns a few hundred at mainnet prices. */
const DEPLOY_FEE_LIMIT_SUN = 5_000_000_000n;

/**
 * Deploys the TVM build of `DepositForwarderFactory` (`main_factory`) then
 * `InvoiceForwarderFactory` (`invoice_factory`): the node builds each
 * CreateSmartContract transaction, Ivory checks it is the deployment it asked
 * for and signs it locally, broadcasts it, and waits until it is solidified
 * and succeeded.
 */
export async function deployTronContracts(options: DeployTronContractsOptions): Promise<DeployedTronContracts> {
  const api = createTronApi({ url: options.apiUrl, apiKey: options.apiKey }, 20_000);
  const deployer = tronAddress(privateKeyToAccount(options.privateKey).address);
  const owner = options.owner ?? deployer;
  const args = encodeAbiParameters(
    [
      { name: 'owner', type: 'address' },
      { name: 'feeWallet', type: 'address' },
    ],
    [tvmAddress(owner), tvmAddress(options.feeWallet)],
  );
  const chainId = await jsonRpcChainId(api);
  const deploy = (name: string, abi: readonly unknown[], bytecode: Hex) =>
    deployOne(api, options.privateKey, deployer, { name, abi, bytecode: `${bytecode.slice(2)}${args.slice(2)}` }, options.timeoutMs ?? 180_000);
  const main = await deploy('DepositForwarderFactory', depositForwarderFactoryAbi, tvmDepositForwarderFactoryBytecode);
  const invoice = await deploy('InvoiceForwarderFactory', invoiceForwarderFactoryAbi, tvmInvoiceForwarderFactoryBytecode);
  return { chainId, mainFactory: main.address, invoiceFactory: invoice.address, startBlock: main.blockNumber, feeWallet: options.feeWallet, owner };
}

async function deployOne(
  api: TronApi,
  privateKey: Hex,
  deployer: string,
  contract: { readonly name: string; readonly abi: readonly unknown[]; readonly bytecode: string },
  timeoutMs: number,
): Promise<{ readonly address: string; readonly blockNumber: number }> {
  const owner = tronWireAddress(deployer);
  const built = await api.call<{ txID?: string; raw_data?: object; raw_data_hex?: string; visible?: boolean }>('/wallet/deploycontract', {
    owner_address: owner,
    abi: JSON.stringify(contract.abi),
    bytecode: contract.bytecode,
    fee_limit: Number(DEPLOY_FEE_LIMIT_SUN),
    call_value: 0,
    consume_user_resource_percent: 100,
    origin_energy_limit: 10_000_000,
    name: contract.name,
  });
  const rawDataHex = built.raw_data_hex?.toLowerCase();
  if (rawDataHex === undefined || built.raw_data === undefined) throw new Error(`the node built no deployment of ${contract.name}`);
  checkCreate(rawDataHex, { owner, bytecode: contract.bytecode, feeLimit: DEPLOY_FEE_LIMIT_SUN }, BigInt(Date.now()) - 60_000n);
  const txId = transactionId(rawDataHex);
  const signature = signTransactionId(txId, privateKey);
  // The node parses the JSON; had it lied in it, the id it computes would not match the signature.
  const answer = await api.call<{ result?: boolean; code?: string; message?: string }>('/wallet/broadcasttransaction', {
    visible: false,
    txID: txId,
    raw_data: built.raw_data,
    raw_data_hex: rawDataHex,
    signature: [signature],
  });
  if (answer.result !== true) throw new Error(`deployment of ${contract.name} refused: ${answer.code ?? ''} ${answer.message === undefined ? '' : Buffer.from(answer.message, 'hex').toString('utf8')}`);
  const expected = contractAddressOf(txId, owner);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const info = await transactionInfo(api, txId, true);
    if (info !== undefined) {
      if (info.result !== 'SUCCESS') throw new Error(`deployment of ${contract.name} (${txId}) failed: ${info.result}`);
      const address = info.contractAddress ?? `41${expected.slice(2)}`;
      return { address: tronAddress(address), blockNumber: Number(info.blockNumber) };
    }
    if (Date.now() > deadline) throw new Error(`deployment of ${contract.name} (${txId}) not solidified after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
}

/** java-tron's address of a contract created by a transaction: keccak256(txID ‖ owner), last 20 bytes. */
function contractAddressOf(txId: string, ownerWire: string): Address {
  return `0x${keccak256(`0x${txId}${ownerWire}`).slice(-40)}` as Address;
}
