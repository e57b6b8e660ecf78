import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getAddress } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { depositForwarderFactoryAbi, invoiceForwarderFactoryAbi, readFactoryFeeWallet } from '../../src/chains/evm/contracts/index.js';
import { ANVIL_KEYS, startAnvil, type Anvil } from '../support/anvil.js';

// Issue 9 "Operator path": `npx ivory contracts deploy --rpc-url URL --private-key HEX
// --fee-wallet ADDRESS` deploys the factories, waits for their receipts and prints, as the
// last line of its standard output, one JSON object with chain_id, main_factory,
// invoice_factory and start_block. Run through the built program (test/global-setup.ts builds it).

const main = path.resolve(import.meta.dirname, '../../dist/cli/main.js');

function ivory(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [main, ...args], { env: { PATH: process.env.PATH ?? '', HOME: os.tmpdir() }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr })));
}

describe('ivory contracts deploy', () => {
  let anvil: Anvil;
  beforeAll(async () => {
    anvil = await startAnvil({ chainId: 31338 });
  });
  afterAll(async () => {
    await anvil.stop();
  });

  it('deploys both factories and prints the catalogue fields as the last line of standard output', async () => {
    const feeWallet = privateKeyToAccount(ANVIL_KEYS[1]).address;
    const result = await ivory(['contracts', 'deploy', '--rpc-url', anvil.rpcUrl, '--private-key', ANVIL_KEYS[0], '--fee-wallet', feeWallet.toLowerCase()]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n');
    const fields = JSON.parse(lines[lines.length - 1] ?? '') as Record<string, unknown>;
    expect(fields).toMatchObject({ chain_id: 31338, fee_wallet: feeWallet });
    expect(Number.isInteger(fields.start_block)).toBe(true);
    const mainFactory = getAddress(String(fields.main_factory));
    const invoiceFactory = getAddress(String(fields.invoice_factory));
    expect(fields.main_factory).toBe(mainFactory); // EIP-55, as the catalogue requires
    expect(mainFactory).not.toBe(invoiceFactory);
    // Deployed and answering, with the deployer as owner.
    const deployer = privateKeyToAccount(ANVIL_KEYS[0]).address;
    expect(await anvil.client.readContract({ address: mainFactory, abi: depositForwarderFactoryAbi, functionName: 'owner' })).toBe(deployer);
    expect(await anvil.client.readContract({ address: invoiceFactory, abi: invoiceForwarderFactoryAbi, functionName: 'owner' })).toBe(deployer);
    // Both factories store the fee wallet, for the terms of new forwarders.
    expect(await readFactoryFeeWallet(anvil.client, mainFactory)).toBe(feeWallet);
    expect(await readFactoryFeeWallet(anvil.client, invoiceFactory)).toBe(feeWallet);
    const block = await anvil.client.getBlockNumber();
    expect(BigInt(fields.start_block as number) <= block).toBe(true);
  });

  it.each([
    ['a missing --fee-wallet', ['--rpc-url', 'http://127.0.0.1:1', '--private-key', ANVIL_KEYS[0]], 'ivory contracts deploy: --fee-wallet must be an EVM address'],
    ['a short key', ['--rpc-url', 'http://127.0.0.1:1', '--private-key', '0x12', '--fee-wallet', '0x000000000000000000000000000000000000dEaD'], 'ivory contracts deploy: --private-key must be 32 bytes of hex'],
    ['an unknown flag', ['--rpc', 'x'], "ivory contracts deploy: Unknown option '--rpc'"],
  ])('refuses %s with one line and exit code 2', async (_case, args, message) => {
    const result = await ivory(['contracts', 'deploy', ...args]);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')[0]).toContain(message);
    expect(result.stdout).toBe('');
  });
});

describe('ivory contracts recover', () => {
  it.each([
    ['a missing --issuance', ['--asset', 'native', '--rpc-url', 'http://127.0.0.1:1'], 'ivory contracts recover: --issuance must be an issuance id'],
    ['a bad --asset', ['--issuance', '6f1c1f4e-3b1a-4c55-9a43-0d1f5f2c9b11', '--asset', 'eth', '--rpc-url', 'http://127.0.0.1:1'], 'ivory contracts recover: --asset must be a token address or "native"'],
    ['an unknown flag', ['--amount', '1'], "ivory contracts recover: Unknown option '--amount'"],
  ])('refuses %s with one line and exit code 2', async (_case, args, message) => {
    const result = await ivory(['contracts', 'recover', ...args]);
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe(message);
    expect(result.stdout).toBe('');
  });
});
