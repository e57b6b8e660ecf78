import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTestClient, http, publicActions, walletActions, type Chain } from 'viem';
import { foundry } from 'viem/chains';
import { freePort } from './local-server.js';

const ANVIL_BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../node_modules/.bin/anvil');

/** anvil's default funded accounts (mnemonic "test test … junk"): public test keys, never real money. */
export const ANVIL_KEYS = [
  '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
  '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
  '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a',
  '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6',
  '0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a',
] as const;

export interface AnvilOptions {
  /** Seconds between blocks; undefined mines one block per transaction. */
  readonly blockTime?: number;
  readonly chainId?: number;
  /** An older EVM rule set, e.g. 'berlin': blocks without `baseFeePerGas`, a legacy-gas network. */
  readonly hardfork?: string;
}

export interface Anvil {
  readonly rpcUrl: string;
  readonly port: number;
  readonly chainId: number;
  readonly chain: Chain;
  /** viem test client (anvil_* methods) with public and wallet actions. */
  readonly client: ReturnType<typeof anvilClient>;
  stop(): Promise<void>;
}

function anvilClient(chain: Chain, rpcUrl: string) {
  return createTestClient({ chain, mode: 'anvil', transport: http(rpcUrl), cacheTime: 0 })
    .extend(publicActions)
    .extend(walletActions);
}

/** A real anvil node on a free loopback port, stopped by `stop()`. */
export async function startAnvil(options: AnvilOptions = {}): Promise<Anvil> {
  const chainId = options.chainId ?? 31337;
  const port = await freePort();
  const args = ['--port', String(port), '--host', '127.0.0.1', '--chain-id', String(chainId), '--silent'];
  if (options.blockTime !== undefined) args.push('--block-time', String(options.blockTime));
  if (options.hardfork !== undefined) args.push('--hardfork', options.hardfork);
  const child: ChildProcess = spawn(ANVIL_BIN, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const rpcUrl = `http://127.0.0.1:${port}`;
  const chain: Chain = { ...foundry, id: chainId, rpcUrls: { default: { http: [rpcUrl] } } };
  const client = anvilClient(chain, rpcUrl);
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`anvil exited with ${child.exitCode}: ${stderr}`);
    try {
      await client.getChainId();
      break;
    } catch {
      if (Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(`anvil did not answer on ${rpcUrl}: ${stderr}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  return {
    rpcUrl,
    port,
    chainId,
    chain,
    client,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 3_000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
    },
  };
}
