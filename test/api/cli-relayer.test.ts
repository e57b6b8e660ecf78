import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, describe, expect, it } from 'vitest';
import { openEmbedded } from '../../src/platform/database/database.js';

// Issue 9 "Operator path": the relayer is generated on first start, or imported by a CLI
// command: `ivory relayer import --chain-id ID < key.txt` (the key on standard input,
// sealed with SECRET_KEY). Through the built program (test/global-setup.ts builds it).

const main = path.resolve(import.meta.dirname, '../../dist/cli/main.js');
const KEY = '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6'; // anvil's public test key #3
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ivory-relayer-cli-'));
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

function ivory(args: string[], stdin: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [main, ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: os.tmpdir(), DATA_DIR: dataDir, LOG_LEVEL: 'silent' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end(stdin);
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr })));
}

describe('ivory relayer import', () => {
  it('imports the key read from standard input, sealed: the relayer is that account, the key not stored in the clear', async () => {
    const result = await ivory(['relayer', 'import', '--chain-id', '31337'], `${KEY}\n`);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const address = privateKeyToAccount(KEY).address;
    expect(result.stdout.trim()).toBe(`relayer of chain 31337 is now ${address}; fund it with the network's native coin`);
    const database = await openEmbedded(dataDir);
    try {
      const rows = await database.db.selectFrom('evm_relayers' as never).selectAll().execute();
      expect(rows).toHaveLength(1);
      const text = JSON.stringify(rows);
      expect(text.toLowerCase()).toContain(address.toLowerCase());
      expect(text.toLowerCase()).not.toContain(KEY.slice(2).toLowerCase());
    } finally {
      await database.close();
    }
  });

  it.each([
    ['a key that is not 32 bytes of hex', ['relayer', 'import', '--chain-id', '31337'], '0x1234', 'ivory relayer import: standard input must hold a private key: 0x followed by 64 hex digits'],
    ['a bad chain id', ['relayer', 'import', '--chain-id', 'zero'], KEY, 'ivory relayer import: --chain-id must be a positive integer'],
  ])('refuses %s with one line and exit code 2', async (_case, args, stdin, message) => {
    const result = await ivory(args, stdin);
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe(message);
  });
});
