import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ed25519 } from '@noble/curves/ed25519';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, describe, expect, it } from 'vitest';
import { base58 } from '../../src/chains/base58.js';
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

describe('ivory relayer import --family solana', () => {
  // A devnet-only keypair: the ed25519 seed 1, 2, …, 32 and its public key.
  const seed = Uint8Array.from({ length: 32 }, (_, index) => index + 1);
  const publicKey = ed25519.getPublicKey(seed);
  const keypair = Uint8Array.from([...seed, ...publicKey]);
  const address = base58.encode(publicKey);
  const other = ed25519.getPublicKey(Uint8Array.from({ length: 32 }, (_, index) => 100 + index));
  const CHAIN = '900';

  async function solanaRelayers() {
    const database = await openEmbedded(dataDir);
    try {
      return await database.db.selectFrom('solana_relayers' as never).selectAll().execute();
    } finally {
      await database.close();
    }
  }

  it('issue 24 item 4: imports the base58 64-byte keypair a wallet exports (Phantom, solana-keygen), sealed: the relayer is its public key, the seed not stored in the clear', async () => {
    const result = await ivory(['relayer', 'import', '--chain-id', CHAIN, '--family', 'solana'], `${base58.encode(keypair)}\n`);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe(`relayer of Solana chain ${CHAIN} is now ${address}; fund it with SOL (it pays every fee and the deposit token accounts' rent)`);
    const rows = await solanaRelayers();
    expect(rows).toHaveLength(1);
    const text = JSON.stringify(rows);
    expect(text).toContain(address);
    expect(text).not.toContain(Buffer.from(seed).toString('hex'));
    expect(text).not.toContain(base58.encode(keypair));
  });

  it('issue 24 item 4: imports the JSON array of 64 bytes that solana-keygen writes to a keypair file', async () => {
    const otherSeed = Uint8Array.from({ length: 32 }, (_, index) => 200 + index);
    const otherAddress = base58.encode(ed25519.getPublicKey(otherSeed));
    const file = JSON.stringify([...otherSeed, ...ed25519.getPublicKey(otherSeed)]);
    const result = await ivory(['relayer', 'import', '--chain-id', CHAIN, '--family', 'solana'], file);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`is now ${otherAddress}`);
    expect(JSON.stringify(await solanaRelayers())).toContain(otherAddress);
  });

  it('issue 24 item 4: refused while a sweep signed by the current relayer may still land (as EVM), accepted once it is finalized', async () => {
    const database = await openEmbedded(dataDir);
    const id = randomUUID();
    try {
      await database.db
        .insertInto('solana_payout_transactions' as never)
        .values({
          id,
          payout_id: randomUUID(),
          issuance_id: randomUUID(),
          chain_id: Number(CHAIN),
          signature: 'in-flight-signature',
          wire_base64: 'AA==',
          last_valid_block_height: '100',
          status: 'landed',
          created_at: new Date(),
          updated_at: new Date(),
        } as never)
        .execute();
    } finally {
      await database.close();
    }
    const before = JSON.stringify(await solanaRelayers());
    const refused = await ivory(['relayer', 'import', '--chain-id', CHAIN, '--family', 'solana'], base58.encode(keypair));
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim()).toMatch(/^ivory relayer import: the relayer \S+ of Solana chain 900 still has sweeps in flight; try again once they are finalized$/);
    expect(JSON.stringify(await solanaRelayers())).toBe(before);

    const reopened = await openEmbedded(dataDir);
    try {
      await reopened.db.updateTable('solana_payout_transactions' as never).set({ status: 'confirmed' } as never).where('id' as never, '=', id as never).execute();
    } finally {
      await reopened.close();
    }
    const accepted = await ivory(['relayer', 'import', '--chain-id', CHAIN, '--family', 'solana'], base58.encode(keypair));
    expect(accepted.code, accepted.stderr).toBe(0);
    expect(JSON.stringify(await solanaRelayers())).toContain(address);
  });

  it.each([
    ['a keypair whose public half is not its seed\'s', base58.encode(Uint8Array.from([...seed, ...other])), 'its public half is not the public key of its secret half'],
    ['a 32-byte key (a public key or a bare seed)', base58.encode(publicKey), '32 bytes, a Solana keypair has 64 (seed, then public key)'],
    ['an EVM hex key', KEY, 'neither base58 nor a JSON array of bytes'],
    ['a JSON array with a value out of byte range', JSON.stringify([...keypair.slice(0, 63), 256]), 'not a JSON array of 64 bytes'],
    ['a JSON array of 63 bytes', JSON.stringify([...keypair.slice(0, 63)]), '63 bytes, a Solana keypair has 64 (seed, then public key)'],
  ])('refuses %s with one line and exit code 2, storing nothing', async (_case, stdin, problem) => {
    const before = JSON.stringify(await solanaRelayers());
    const result = await ivory(['relayer', 'import', '--chain-id', CHAIN, '--family', 'solana'], stdin);
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe(`ivory relayer import: standard input must hold a Solana keypair (base58 of 64 bytes, or a keypair file's JSON array): ${problem}`);
    expect(JSON.stringify(await solanaRelayers())).toBe(before);
  });
});
