import fs from 'node:fs';
import path from 'node:path';
import solc from 'solc';
import { TronWeb, utils as tronUtils } from 'tronweb';
import { concat, encodeAbiParameters, keccak256, numberToHex, sha256 } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTronNode, type TronNode } from '../../devnets/tron-node/index.js';

/**
 * The local Tron node (issue 23 item 8) speaks java-tron's wire format: proven with the official
 * SDK as the client. tronweb re-encodes every transaction the node builds and refuses it when the
 * bytes differ, and the node decodes every transaction tronweb builds itself.
 */

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

interface Artifact {
  abi: Json[];
  bytecode: string;
}

/** Compiled at test time (contracts/ belongs to the contracts work): a CREATE/CREATE2 factory and a USDT-like token. */
const TEST_SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
contract Child { uint256 public value = 7; }
contract Factory {
  event Deployed(address child);
  function deploy2(bytes32 salt) external returns (address child) { child = address(new Child{salt: salt}()); emit Deployed(child); }
  function deploy() external returns (address child) { child = address(new Child()); emit Deployed(child); }
}
/// Like USDT on Tron: transfer moves the balance and returns false.
contract UsdtLike {
  event Transfer(address indexed from, address indexed to, uint256 value);
  mapping(address => uint256) public balanceOf;
  constructor() { balanceOf[msg.sender] = 1000000; }
  function transfer(address to, uint256 amount) external returns (bool) {
    require(balanceOf[msg.sender] >= amount, "balance");
    balanceOf[msg.sender] -= amount;
    balanceOf[to] += amount;
    emit Transfer(msg.sender, to, amount);
    return false;
  }
}`;

let compiled: Record<string, Artifact> | undefined;

/** solc takes about a second: compile once per file. */
function compileTestContracts(): Record<string, Artifact> {
  compiled ??= compileSource();
  return compiled;
}

function compileSource(): Record<string, Artifact> {
  const output = JSON.parse(
    solc.compile(
      JSON.stringify({
        language: 'Solidity',
        sources: { 'Test.sol': { content: TEST_SOURCE } },
        settings: { evmVersion: 'istanbul', outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } },
      }),
    ),
  ) as Json;
  const contracts = output.contracts['Test.sol'] as Record<string, Json>;
  return Object.fromEntries(Object.entries(contracts).map(([name, contract]) => [name, { abi: contract.abi, bytecode: contract.evm.bytecode.object as string }]));
}

const artifact = (name: string): Artifact => JSON.parse(fs.readFileSync(path.join('contracts/artifacts', `${name}.json`), 'utf8')) as Artifact;

let node: TronNode;
let tronWeb: TronWeb;
let owner: { address: string; privateKey: string; hexAddress: string };
let other: { address: string; privateKey: string; hexAddress: string };

async function post(pathname: string, body: unknown, headers: Record<string, string> = {}): Promise<Json> {
  const response = await fetch(`${node.url}${pathname}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return (await response.json()) as Json;
}

/** Mines a block and answers the transaction's info. */
async function confirm(txid: string): Promise<Json> {
  await node.mineBlock();
  return post('/wallet/gettransactioninfobyid', { value: txid });
}

async function signAndSend(transaction: Json, privateKey = owner.privateKey): Promise<Json> {
  const signed = await tronWeb.trx.sign(transaction as never, privateKey);
  return (await tronWeb.trx.sendRawTransaction(signed as never)) as Json;
}

async function deploy(name: string, from = owner, compiled: Artifact = artifact(name)): Promise<string> {
  const { abi, bytecode } = compiled;
  const transaction = await tronWeb.transactionBuilder.createSmartContract({ abi: abi as never, bytecode: bytecode.replace(/^0x/, ''), feeLimit: 5_000_000_000, name }, from.hexAddress);
  const sent = await signAndSend(transaction, from.privateKey);
  expect(sent.result).toBe(true);
  const info = await confirm(sent.txid as string);
  expect(info.receipt.result).toBe('SUCCESS');
  expect(info.contract_address).toBe(transaction.contract_address);
  return TronWeb.address.fromHex(info.contract_address as string);
}

async function tokenBalance(token: string, holder: string): Promise<bigint> {
  const answer = await tronWeb.transactionBuilder.triggerConstantContract(token, 'balanceOf(address)', {}, [{ type: 'address', value: holder }], owner.address);
  return BigInt(`0x${answer.constant_result[0]}`);
}

async function sendToken(token: string, to: string, amount: bigint, feeLimit: number, from = owner): Promise<Json> {
  const built = await tronWeb.transactionBuilder.triggerSmartContract(
    token,
    'transfer(address,uint256)',
    { feeLimit },
    [
      { type: 'address', value: to },
      { type: 'uint256', value: amount.toString() },
    ],
    from.address,
  );
  expect(built.result.result).toBe(true);
  const sent = await signAndSend(built.transaction as Json, from.privateKey);
  expect(sent.result).toBe(true);
  return confirm(sent.txid as string);
}

beforeAll(async () => {
  // Blocks by hand (blockMs 0) so each test knows which block holds its transaction.
  node = await startTronNode({ blockMs: 0, solidLag: 2, maxBlockRange: 100 });
  [owner, other] = node.accounts as [typeof owner, typeof other];
  tronWeb = new TronWeb({ fullHost: node.url, privateKey: owner.privateKey });
  await node.mineBlock();
});

afterAll(async () => {
  await node?.close();
});

describe('local Tron node: reads in java-tron shape', () => {
  it('serves the head and solidified blocks, with blockID = number ‖ sha256(header)[8:]', async () => {
    for (let index = 0; index < 3; index++) await node.mineBlock();
    const head = await tronWeb.trx.getCurrentBlock();
    const solid = await tronWeb.trx.getConfirmedCurrentBlock();
    expect(head.block_header.raw_data.number).toBe(node.headNumber());
    expect(solid.block_header.raw_data.number).toBe(node.headNumber() - 2);
    expect(head.blockID.slice(0, 16)).toBe(head.block_header.raw_data.number.toString(16).padStart(16, '0'));
    expect(head.block_header.raw_data.witness_address).toMatch(/^41[0-9a-f]{40}$/);
    const byNumber = await post('/wallet/getblockbynum', { num: solid.block_header.raw_data.number });
    expect(byNumber.blockID).toBe(solid.blockID);
    const parent = await post('/wallet/getblockbynum', { num: head.block_header.raw_data.number - 1 });
    expect(head.block_header.raw_data.parentHash).toBe(parent.blockID);
  });

  it('answers chain parameters, accounts and account resources with java-tron names', async () => {
    const parameters = await tronWeb.trx.getChainParameters();
    const value = (key: string): number | undefined => parameters.find((parameter) => parameter.key === key)?.value;
    expect(value('getEnergyFee')).toBe(420);
    expect(value('getTransactionFee')).toBe(1000);
    expect(value('getMaxFeeLimit')).toBe(15_000_000_000);

    const account = await tronWeb.trx.getAccount(owner.address);
    expect(account.address).toBe(owner.hexAddress);
    expect(account.balance).toBe(1_000_000_000_000);
    expect(typeof account.create_time).toBe('number');
    const visible = await post('/wallet/getaccount', { address: owner.address, visible: true });
    expect(visible.address).toBe(owner.address);
    expect(await post('/wallet/getaccount', { address: TronWeb.address.fromPrivateKey('11'.repeat(32)) })).toEqual({});

    const resources = await tronWeb.trx.getAccountResources(owner.address);
    expect(resources.freeNetLimit).toBe(600);
    expect(resources.TotalEnergyLimit).toBeGreaterThan(0);
    expect(resources.EnergyLimit).toBeUndefined();
  });
});

describe('local Tron node: TRX transfers', () => {
  it('executes a transfer tronweb builds, signs and broadcasts', async () => {
    const receiver = TronWeb.address.fromPrivateKey('22'.repeat(32)) as string;
    const sent = await tronWeb.trx.sendTransaction(receiver, 1_500_000);
    expect(sent.result).toBe(true);
    const info = await confirm(sent.txid as string);
    expect(info.receipt.net_usage).toBeGreaterThan(0);
    expect(await tronWeb.trx.getBalance(receiver)).toBe(1_500_000);
  });

  it('builds a TransferContract with /wallet/createtransaction that tronweb re-encodes to the same bytes', async () => {
    const receiver = TronWeb.address.fromPrivateKey('33'.repeat(32)) as string;
    const built = await post('/wallet/createtransaction', { owner_address: owner.hexAddress, to_address: TronWeb.address.toHex(receiver), amount: 7 });
    expect(built.raw_data.contract[0].parameter.type_url).toBe('type.googleapis.com/protocol.TransferContract');
    expect(tronUtils.transaction.txCheck(built)).toBe(true);
    const sent = await signAndSend(built);
    expect(sent.result).toBe(true);
    await confirm(sent.txid as string);
    expect(await tronWeb.trx.getBalance(receiver)).toBe(7);
  });

  it('refuses a bad signature (SIGERROR), an expired transaction and a duplicate', async () => {
    const forged = await tronWeb.transactionBuilder.sendTrx(other.address, 1, owner.address);
    // tronweb's trx.sign refuses a key that is not the owner's; its lower-level signer does not.
    const wrongSigner = (await tronWeb.trx.sendRawTransaction(tronUtils.crypto.signTransaction(other.privateKey, forged) as never)) as Json;
    expect(wrongSigner.code).toBe('SIGERROR');
    expect(Buffer.from(wrongSigner.message as string, 'hex').toString()).toContain('signature');

    const head = await tronWeb.trx.getCurrentBlock();
    const blockHeader = {
      ref_block_bytes: head.block_header.raw_data.number.toString(16).slice(-4).padStart(4, '0'),
      ref_block_hash: head.blockID.slice(16, 32),
      expiration: head.block_header.raw_data.timestamp - 1000,
      timestamp: head.block_header.raw_data.timestamp - 61_000,
    };
    const expired = await tronWeb.transactionBuilder.sendTrx(other.address, 1, owner.address, { blockHeader } as never);
    expect((await signAndSend(expired)).code).toBe('TRANSACTION_EXPIRATION_ERROR');

    const unknownRef = await tronWeb.transactionBuilder.sendTrx(other.address, 1, owner.address, {
      blockHeader: { ...blockHeader, ref_block_hash: '00'.repeat(8), expiration: head.block_header.raw_data.timestamp + 60_000 },
    } as never);
    expect((await signAndSend(unknownRef)).code).toBe('TAPOS_ERROR');

    const good = await tronWeb.transactionBuilder.sendTrx(other.address, 2, owner.address);
    expect((await signAndSend(good)).result).toBe(true);
    expect((await signAndSend(good)).code).toBe('DUP_TRANSACTION_ERROR');
    await node.mineBlock();
  });

  it('refuses a transfer beyond the balance with CONTRACT_VALIDATE_ERROR', async () => {
    const poor = TronWeb.address.fromPrivateKey('44'.repeat(32)) as string;
    await node.fund(poor, 10n);
    const transaction = await tronWeb.transactionBuilder.sendTrx(other.address, 11, poor);
    expect((await signAndSend(transaction, '44'.repeat(32))).code).toBe('CONTRACT_VALIDATE_ERROR');
  });

  it('drops from the block a transaction that no longer validates when the block runs (validated at broadcast against the head)', async () => {
    const key = '88'.repeat(32);
    const spender = TronWeb.address.fromPrivateKey(key) as string;
    await node.fund(spender, 1_000_000n);
    const first = await signAndSend(await tronWeb.transactionBuilder.sendTrx(other.address, 600_000, spender), key);
    const second = await signAndSend(await tronWeb.transactionBuilder.sendTrx(other.address, 600_001, spender), key);
    expect([first.result, second.result]).toEqual([true, true]);
    expect((await confirm(first.txid as string)).blockNumber).toBe(node.headNumber());
    expect(await post('/wallet/gettransactioninfobyid', { value: second.txid })).toEqual({});
    expect(await tronWeb.trx.getBalance(spender)).toBe(400_000);
  });

  it('refuses a transaction its owner cannot pay bandwidth for once the free 600 bytes are spent (BANDWITH_ERROR)', async () => {
    const poorKey = '77'.repeat(32);
    const poor = TronWeb.address.fromPrivateKey(poorKey) as string;
    await node.fund(poor, 100n);
    for (const amount of [1, 2]) {
      const sent = await signAndSend(await tronWeb.transactionBuilder.sendTrx(other.address, amount, poor), poorKey);
      expect((await confirm(sent.txid as string)).receipt.net_usage).toBeGreaterThan(200);
    }
    const third = await signAndSend(await tronWeb.transactionBuilder.sendTrx(other.address, 3, poor), poorKey);
    expect(third.code).toBe('BANDWITH_ERROR');
    const resources = await tronWeb.trx.getAccountResources(poor);
    expect(resources.freeNetUsed).toBeGreaterThan(400);
  });
});

describe('local Tron node: contracts and energy', () => {
  let token: string;

  beforeAll(async () => {
    token = await deploy('TestStablecoin');
    const minted = await tronWeb.transactionBuilder.triggerSmartContract(token, 'mint(address,uint256)', { feeLimit: 1_000_000_000 }, [
      { type: 'address', value: owner.address },
      { type: 'uint256', value: '1000000000' },
    ]);
    const sent = await signAndSend(minted.transaction as Json);
    expect((await confirm(sent.txid as string)).receipt.result).toBe('SUCCESS');
  });

  it('builds a deployment with /wallet/deploycontract in java-tron bytes, at java-tron’s contract address', async () => {
    const { abi, bytecode } = artifact('TestStablecoin');
    const built = await post('/wallet/deploycontract', {
      owner_address: owner.hexAddress,
      abi: JSON.stringify(abi),
      bytecode: bytecode.replace(/^0x/, ''),
      fee_limit: 5_000_000_000,
      call_value: 0,
      consume_user_resource_percent: 100,
      origin_energy_limit: 10_000_000,
      name: 'TestStablecoin',
    });
    expect(built.raw_data.contract[0].type).toBe('CreateSmartContract');
    expect(tronUtils.transaction.txCheck(built)).toBe(true);
    const expected = `41${keccak256(concat([`0x${built.txID}`, `0x${owner.hexAddress}`])).slice(-40)}`;
    expect(built.contract_address).toBe(expected);
    const info = await confirm((await signAndSend(built)).txid as string);
    expect(info.contract_address).toBe(expected);
    expect(info.receipt.energy_usage_total).toBeGreaterThan(100_000);
  });

  it('transfers a TRC-20 with triggersmartcontract, burns energy × getEnergyFee, logs Transfer', async () => {
    const before = BigInt(await tronWeb.trx.getBalance(owner.address));
    const info = await sendToken(token, other.address, 250n, 100_000_000);
    expect(info.receipt.result).toBe('SUCCESS');
    expect(info.result).toBeUndefined();
    expect(info.receipt.energy_usage_total).toBeGreaterThan(20_000);
    expect(info.receipt.energy_fee).toBe(info.receipt.energy_usage_total * 420);
    expect(info.fee).toBe(info.receipt.energy_fee + (info.receipt.net_fee ?? 0));
    expect(before - BigInt(await tronWeb.trx.getBalance(owner.address))).toBe(BigInt(info.fee));
    const [log] = info.log;
    expect(log.address).toBe(TronWeb.address.toHex(token).slice(2));
    expect(log.topics[0]).toBe(keccak256(new TextEncoder().encode('Transfer(address,address,uint256)')).slice(2));
    expect(log.topics[2]).toBe(`000000000000000000000000${other.hexAddress.slice(2)}`);
    expect(BigInt(`0x${log.data}`)).toBe(250n);
    expect(await tokenBalance(token, other.address)).toBe(250n);
    const solidified = await post('/walletsolidity/gettransactioninfobyid', { value: info.id });
    expect(solidified).toEqual({});
    await node.mineBlock();
    await node.mineBlock();
    expect((await post('/walletsolidity/gettransactioninfobyid', { value: info.id })).id).toBe(info.id);
  });

  it('speaks base58 T… addresses when the request says visible, and serves GET with query parameters', async () => {
    const built = await post('/wallet/triggersmartcontract', {
      owner_address: owner.address,
      contract_address: token,
      function_selector: 'balanceOf(address)',
      parameter: encodeAbiParameters([{ type: 'address' }], [`0x${owner.hexAddress.slice(2)}`]).slice(2),
      fee_limit: 1_000_000,
      visible: true,
    });
    expect(built.transaction.visible).toBe(true);
    expect(built.transaction.raw_data.contract[0].parameter.value).toMatchObject({ owner_address: owner.address, contract_address: token });
    expect(tronUtils.transaction.txCheck(built.transaction)).toBe(true);
    const viaGet = (await (await fetch(`${node.url}/wallet/getaccount?address=${owner.address}&visible=true`)).json()) as Json;
    expect(viaGet.address).toBe(owner.address);
  });

  it('lets a test make the node lie: tronweb refuses a transaction built for another contract', async () => {
    node.intercept((path, _request, answer) => {
      if (path !== '/wallet/triggersmartcontract') return undefined;
      const lie = structuredClone(answer) as Json;
      lie.transaction.raw_data.contract[0].parameter.value.contract_address = other.hexAddress;
      // A consistent lie: bytes and txID re-encoded for the other contract.
      const encoded = tronUtils.transaction.txJsonToPb(lie.transaction);
      lie.transaction.raw_data_hex = tronUtils.transaction.txPbToRawDataHex(encoded).toLowerCase();
      lie.transaction.txID = tronUtils.transaction.txPbToTxID(encoded).replace(/^0x/, '');
      return lie;
    });
    try {
      await expect(
        tronWeb.transactionBuilder.triggerSmartContract(token, 'transfer(address,uint256)', { feeLimit: 1_000_000 }, [
          { type: 'address', value: other.address },
          { type: 'uint256', value: '1' },
        ]),
      ).rejects.toThrow(/Invalid transaction/);
    } finally {
      node.intercept();
    }
  });

  it('answers triggerconstantcontract with energy_used and a revert as java-tron does', async () => {
    const answer = await post('/wallet/triggerconstantcontract', {
      owner_address: other.hexAddress,
      contract_address: TronWeb.address.toHex(token),
      function_selector: 'transfer(address,uint256)',
      parameter: encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [`0x${owner.hexAddress.slice(2)}`, 10n ** 30n]).slice(2),
    });
    expect(answer.result.result).toBe(true);
    expect(Buffer.from(answer.result.message as string, 'hex').toString()).toBe('REVERT opcode executed');
    expect(answer.transaction.ret).toEqual([{ ret: 'FAILED' }]);
    expect(answer.energy_used).toBeGreaterThan(0);
  });

  it('fails a transaction that reverts: REVERT, result FAILED, energy burnt, balances kept', async () => {
    const info = await sendToken(token, owner.address, 10n ** 30n, 100_000_000, other);
    expect(info.receipt.result).toBe('REVERT');
    expect(info.result).toBe('FAILED');
    expect(info.receipt.energy_fee).toBeGreaterThan(0);
    expect(info.log).toBeUndefined();
    expect(await tokenBalance(token, other.address)).toBe(250n);
  });

  it('runs out of energy when fee_limit is too low: OUT_OF_ENERGY, the whole fee_limit burnt, state reverted', async () => {
    const before = BigInt(await tronWeb.trx.getBalance(owner.address));
    const feeLimit = 420 * 5000;
    const info = await sendToken(token, other.address, 1n, feeLimit);
    expect(info.receipt.result).toBe('OUT_OF_ENERGY');
    expect(info.result).toBe('FAILED');
    expect(info.receipt.energy_fee).toBe(feeLimit);
    expect(before - BigInt(await tronWeb.trx.getBalance(owner.address))).toBe(BigInt(feeLimit + (info.receipt.net_fee ?? 0)));
    expect(await tokenBalance(token, other.address)).toBe(250n);
  });

  it('spends granted (staked) energy before burning TRX', async () => {
    await node.grantEnergy(other.address, 1_000_000);
    const before = BigInt(await tronWeb.trx.getBalance(other.address));
    const info = await sendToken(token, owner.address, 50n, 100_000_000, other);
    expect(info.receipt.result).toBe('SUCCESS');
    expect(info.receipt.energy_usage).toBe(info.receipt.energy_usage_total);
    expect(info.receipt.energy_fee).toBeUndefined();
    expect(before - BigInt(await tronWeb.trx.getBalance(other.address))).toBe(BigInt(info.receipt.net_fee ?? 0));
    const resources = await tronWeb.trx.getAccountResources(other.address);
    expect(resources.EnergyLimit).toBe(1_000_000);
    expect(resources.EnergyUsed).toBe(info.receipt.energy_usage);
  });

  it('serves the Transfer log through /jsonrpc eth_getLogs in Ethereum shape and refuses too wide a range', async () => {
    const rpc = async (method: string, params: unknown[]): Promise<Json> => post('/jsonrpc', { jsonrpc: '2.0', id: 1, method, params });
    expect((await rpc('eth_chainId', [])).result).toBe('0xcd8690dc');
    const head = Number.parseInt((await rpc('eth_blockNumber', [])).result as string, 16);
    expect(head).toBe(node.headNumber());
    const block = (await rpc('eth_getBlockByNumber', [`0x${head.toString(16)}`, false])).result as Json;
    expect(block.hash).toBe(`0x${(await post('/wallet/getblockbynum', { num: head })).blockID}`);
    const logs = (
      await rpc('eth_getLogs', [
        {
          fromBlock: '0x0',
          toBlock: `0x${head.toString(16)}`,
          address: `0x${TronWeb.address.toHex(token).slice(2)}`,
          topics: [keccak256(new TextEncoder().encode('Transfer(address,address,uint256)')), null, `0x000000000000000000000000${other.hexAddress.slice(2)}`],
        },
      ])
    ).result as Json[];
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({ address: `0x${TronWeb.address.toHex(token).slice(2)}`, removed: false, data: `0x${(250n).toString(16).padStart(64, '0')}` });
    expect(logs[0]?.transactionHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(logs[0]?.blockHash).toMatch(/^0x[0-9a-f]{64}$/);
    const tooWide = await rpc('eth_getLogs', [{ fromBlock: '0x0', toBlock: '0x65' }]);
    expect(tooWide.error.message).toBe('exceed max block range: 100');
  });

  it('derives CREATE2 addresses the TVM way (0x41 ‖ factory ‖ salt ‖ keccak256(init code)) and CREATE from the txID', async () => {
    const contracts = compileTestContracts();
    const childCode = `0x${contracts.Child?.bytecode}` as const;
    const factory = TronWeb.address.toHex(await deploy('Factory', owner, contracts.Factory));

    const salt = `0x${'ab'.repeat(32)}` as const;
    const create2 = await tronWeb.transactionBuilder.triggerSmartContract(factory, 'deploy2(bytes32)', { feeLimit: 1_000_000_000 }, [{ type: 'bytes32', value: salt }]);
    const create2Info = await confirm((await signAndSend(create2.transaction as Json)).txid as string);
    expect(create2Info.receipt.result).toBe('SUCCESS');
    const expected2 = keccak256(concat(['0x41', `0x${factory.slice(2)}`, salt, keccak256(childCode)])).slice(-40);
    expect(create2Info.log[0].data.slice(-40)).toBe(expected2);

    const create = await tronWeb.transactionBuilder.triggerSmartContract(factory, 'deploy()', { feeLimit: 1_000_000_000 }, []);
    const createInfo = await confirm((await signAndSend(create.transaction as Json)).txid as string);
    const expected = keccak256(concat([`0x${createInfo.id}`, numberToHex(0, { size: 8 })])).slice(-40);
    expect(createInfo.log[0].data.slice(-40)).toBe(expected);
    const child = await tronWeb.transactionBuilder.triggerConstantContract(`41${expected}`, 'value()', {}, [], owner.address);
    expect(BigInt(`0x${child.constant_result[0]}`)).toBe(7n);
  });

  it('moves the balance of a token whose transfer returns false (USDT on Tron)', async () => {
    const usdtLike = await deploy('UsdtLike', owner, compileTestContracts().UsdtLike);
    const constant = await tronWeb.transactionBuilder.triggerConstantContract(usdtLike, 'transfer(address,uint256)', {}, [
      { type: 'address', value: other.address },
      { type: 'uint256', value: '10' },
    ], owner.address);
    expect(BigInt(`0x${constant.constant_result[0]}`)).toBe(0n);
    const info = await sendToken(usdtLike, other.address, 10n, 100_000_000);
    expect(info.receipt.result).toBe('SUCCESS');
    expect(BigInt(`0x${info.contractResult[0]}`)).toBe(0n);
    expect(await tokenBalance(usdtLike, other.address)).toBe(10n);
  });
});

describe('local Tron node: hooks', () => {
  it('rolls back blocks above the solidified head, and refuses to drop a solidified block', async () => {
    const receiver = TronWeb.address.fromPrivateKey('55'.repeat(32)) as string;
    const keep = node.headNumber();
    const sent = await tronWeb.trx.sendTransaction(receiver, 3_000_000);
    const info = await confirm(sent.txid as string);
    expect(info.blockNumber).toBe(keep + 1);
    expect(await tronWeb.trx.getBalance(receiver)).toBe(3_000_000);
    expect(node.solidNumber()).toBeLessThanOrEqual(keep);

    await node.rollback(keep);
    expect(node.headNumber()).toBe(keep);
    expect(await post('/wallet/gettransactioninfobyid', { value: sent.txid })).toEqual({});
    expect(await tronWeb.trx.getBalance(receiver)).toBe(0);
    await node.mineBlock();
    expect(await post('/wallet/gettransactioninfobyid', { value: sent.txid })).toEqual({});

    await expect(node.rollback(node.solidNumber() - 1)).rejects.toThrow(/solidified/);
    // Rolling back to the solidified head itself drops only blocks above it: allowed.
    await node.rollback(node.solidNumber());
    expect(node.headNumber()).toBe(node.solidNumber());
  });

  it('returns rolled-back transactions to the pool on request', async () => {
    const receiver = TronWeb.address.fromPrivateKey('66'.repeat(32)) as string;
    const keep = node.headNumber();
    const sent = await tronWeb.trx.sendTransaction(receiver, 1_000_000);
    await confirm(sent.txid as string);
    await node.rollback(keep, { requeue: true });
    const info = await confirm(sent.txid as string);
    expect(info.blockNumber).toBe(keep + 1);
    expect(await tronWeb.trx.getBalance(receiver)).toBe(1_000_000);
  });

  it('builds transactions that expire after expirationMs: dropped from the pool, refused once the head passes them', async () => {
    const quick = await startTronNode({ blockMs: 0, expirationMs: 200 });
    try {
      const [sender, receiver] = quick.accounts as [typeof owner, typeof owner];
      const client = new TronWeb({ fullHost: quick.url, privateKey: sender.privateKey });
      const build = async (amount: number): Promise<Json> => {
        const response = await fetch(`${quick.url}/wallet/createtransaction`, {
          method: 'POST',
          body: JSON.stringify({ owner_address: sender.hexAddress, to_address: receiver.hexAddress, amount }),
        });
        return client.trx.sign((await response.json()) as never);
      };
      const pending = await build(1);
      const late = await build(2);
      expect(((await client.trx.sendRawTransaction(pending as never)) as Json).result).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 250));
      await quick.mineBlock();
      expect(await client.trx.getTransactionInfo(pending.txID as string)).toEqual({});
      expect(((await client.trx.sendRawTransaction(late as never)) as Json).code).toBe('TRANSACTION_EXPIRATION_ERROR');
    } finally {
      await quick.close();
    }
  });

  it('produces blocks on its timer and can be paused', async () => {
    const timed = await startTronNode({ blockMs: 100, solidLag: 1 });
    try {
      await new Promise((resolve) => setTimeout(resolve, 450));
      expect(timed.headNumber()).toBeGreaterThanOrEqual(2);
      expect(timed.solidNumber()).toBe(timed.headNumber() - 1);
      timed.pause();
      const paused = timed.headNumber();
      await new Promise((resolve) => setTimeout(resolve, 250));
      expect(timed.headNumber()).toBe(paused);
    } finally {
      await timed.close();
    }
  });

  it('demands TRON-PRO-API-KEY when started with an api key, and records the headers it saw', async () => {
    const guarded = await startTronNode({ blockMs: 0, apiKey: 'local-key' });
    try {
      const refused = await fetch(`${guarded.url}/wallet/getnowblock`, { method: 'POST', body: '{}' });
      expect(refused.status).toBe(401);
      const client = new TronWeb({ fullHost: guarded.url, headers: { 'TRON-PRO-API-KEY': 'local-key' } });
      const block = await client.trx.getCurrentBlock();
      expect(block.block_header.raw_data.number).toBe(0);
      expect(guarded.requests.at(-1)?.headers['tron-pro-api-key']).toBe('local-key');
    } finally {
      await guarded.close();
    }
  });
});

it('hashes raw_data_hex to the txID (sha256), as java-tron does', async () => {
  const built = await post('/wallet/createtransaction', { owner_address: owner.hexAddress, to_address: other.hexAddress, amount: 1 });
  expect(built.txID).toBe(sha256(`0x${built.raw_data_hex}`).slice(2));
});
