#!/usr/bin/env node
/* global process, console */
/* eslint-disable no-console -- a command-line program: the console is its interface */
// Pays a devnet address: `node scripts/devnet-pay.mjs <address> <amount in TUSD> [token]`.
// Mints TUSD to anvil's test account #4 and transfers it, as a payer's wallet would.
// `--family tron` pays a T… address of `npm run devnet -- --family tron` in its USDT
// (scripts/devnet-pay-tron.mjs); `--family solana` pays a wallet address of
// `npm run devnet -- --family solana` in its test USDC (scripts/devnet-pay-solana.mjs).
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createPublicClient, createWalletClient, http, isAddress, parseAbi, parseUnits } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const PAYER_KEY = '0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a';
const { values: flags, positionals } = parseArgs({ options: { family: { type: 'string', default: 'evm' } }, allowPositionals: true });
if (flags.family === 'tron') {
  const { payTron } = await import('./devnet-pay-tron.mjs');
  process.exit(await payTron(positionals));
}
if (flags.family === 'solana') {
  const { paySolana } = await import('./devnet-pay-solana.mjs');
  process.exit(await paySolana(positionals));
}
const [to, amount, tokenArgument] = positionals;
if (to === undefined || !isAddress(to) || amount === undefined || !/^\d+(\.\d{1,6})?$/.test(amount)) {
  console.error('usage: node scripts/devnet-pay.mjs <address> <amount, e.g. 25 or 12.5> [token address]');
  process.exit(2);
}
const dataDir = path.resolve(process.env.DEVNET_DATA_DIR ?? path.join(root, 'data', 'devnet'));
const networksFile = path.join(dataDir, 'networks.json');
if (!existsSync(networksFile)) {
  console.error(`devnet-pay: no ${networksFile}; is \`npm run devnet\` running (with the same DEVNET_DATA_DIR)?`);
  process.exit(1);
}
const network = JSON.parse(readFileSync(networksFile, 'utf8')).networks.find((entry) => entry.chain_id === 31337);
const token = tokenArgument ?? network.tokens[0].address;
const rpcUrl = network.rpc_url;
const chain = { id: 31337, name: 'Ivory devnet', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [rpcUrl] } } };
const account = privateKeyToAccount(PAYER_KEY);
const wallet = createWalletClient({ chain, transport: http(rpcUrl), account });
const reader = createPublicClient({ chain, transport: http(rpcUrl), pollingInterval: 250 });
const abi = parseAbi(['function mint(address to, uint256 amount)', 'function transfer(address to, uint256 amount) returns (bool)']);
const units = parseUnits(amount, 6);
await reader.waitForTransactionReceipt({ hash: await wallet.writeContract({ address: token, abi, functionName: 'mint', args: [account.address, units] }) });
const hash = await wallet.writeContract({ address: token, abi, functionName: 'transfer', args: [to, units] });
const receipt = await reader.waitForTransactionReceipt({ hash });
console.log(`paid ${amount} TUSD to ${to}: tx ${hash} in block ${receipt.blockNumber}`);
