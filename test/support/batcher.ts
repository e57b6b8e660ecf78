import solc from 'solc';
import type { Abi, Address } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import type { Anvil } from './anvil.js';

const BATCHER_SOURCE = `// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.20;
interface IToken { function transferFrom(address from, address to, uint256 amount) external returns (bool); }
/// Several token transfers in one transaction (test helper).
contract Batcher {
  function pay(address token, address[] calldata to, uint256[] calldata amounts) external {
    for (uint256 i = 0; i < to.length; i++) require(IToken(token).transferFrom(msg.sender, to[i], amounts[i]));
  }
}`;

/** Many ERC-20 transfers in one transaction: a test contract, compiled with solc and deployed by `deployer`. */
export async function deployBatcher(anvil: Anvil, deployer: PrivateKeyAccount): Promise<{ address: Address; abi: Abi }> {
  const input = {
    language: 'Solidity',
    sources: { 'Batcher.sol': { content: BATCHER_SOURCE } },
    settings: { outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as {
    errors?: { severity: string; formattedMessage: string }[];
    contracts: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>>;
  };
  const errors = (output.errors ?? []).filter((error) => error.severity === 'error');
  if (errors.length > 0) throw new Error(errors.map((error) => error.formattedMessage).join('\n'));
  const compiled = output.contracts['Batcher.sol']?.Batcher;
  if (compiled === undefined) throw new Error('Batcher did not compile');
  const hash = await anvil.client.deployContract({ account: deployer, chain: anvil.chain, abi: compiled.abi, bytecode: `0x${compiled.evm.bytecode.object}` });
  const receipt = await anvil.client.waitForTransactionReceipt({ hash });
  return { address: receipt.contractAddress as Address, abi: compiled.abi };
}
