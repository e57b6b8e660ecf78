import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/platform/crypto.js';
import { openEmbedded } from '../../src/platform/database/database.js';
import { migrate } from '../../src/platform/database/migrate.js';
import { createMerchant, createUser } from '../support/factories.js';
import { tronAddressOfKey } from './merchants-helpers.js';

// Issue 10 item 7: `ivory admin …` calls the same use cases as the operator API, on the
// storage of the configuration (like `ivory migrate`). The built program is tested, as shipped
// (test/global-setup.ts builds dist/).

const root = path.resolve(import.meta.dirname, '../..');
const main = path.join(root, 'dist/cli/main.js');

function ivory(dataDir: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [main, ...args], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: os.tmpdir(), DATA_DIR: dataDir, LOG_LEVEL: 'silent' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr })));
}

let dataDir: string;
let merchantId: string;
beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ivory-admin-cli-'));
  const database = await openEmbedded(dataDir);
  try {
    await migrate(database.db);
    const user = await createUser(database.db);
    merchantId = (await createMerchant(database.db, user.id)).id;
  } finally {
    await database.close();
  }
}, 120_000);
afterAll(() => {
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function storedMerchant() {
  const database = await openEmbedded(dataDir);
  try {
    return await database.db.selectFrom('merchants').select(['blocked_at', 'blocked_reason']).where('id', '=', merchantId).executeTakeFirstOrThrow();
  } finally {
    await database.close();
  }
}

describe('ivory admin', () => {
  it('blocks, unblocks and prints the audit log as JSON lines, audited with source cli', async () => {
    const blocked = await ivory(dataDir, ['admin', 'block', '--merchant', merchantId, '--reason', 'chargeback fraud']);
    expect(blocked.stderr).toBe('');
    expect(blocked.code).toBe(0);
    expect(JSON.parse(blocked.stdout)).toMatchObject({ id: merchantId, blocked: true, blocked_reason: 'chargeback fraud' });
    expect(await storedMerchant()).toMatchObject({ blocked_reason: 'chargeback fraud', blocked_at: expect.any(Date) });

    const unblocked = await ivory(dataDir, ['admin', 'unblock', '--merchant', merchantId]);
    expect(unblocked.code).toBe(0);
    expect(JSON.parse(unblocked.stdout)).toMatchObject({ id: merchantId, blocked: false });
    expect(await storedMerchant()).toEqual({ blocked_at: null, blocked_reason: null });

    const audit = await ivory(dataDir, ['admin', 'audit']);
    expect(audit.code).toBe(0);
    const lines = audit.stdout.trim().split('\n').map((line) => JSON.parse(line));
    expect(lines.map((entry) => [entry.action, entry.actor, entry.source, entry.ip, entry.target.id])).toEqual([
      ['merchant.unblock', 'operator', 'cli', null, merchantId],
      ['merchant.block', 'operator', 'cli', null, merchantId],
    ]);
    const limited = await ivory(dataDir, ['admin', 'audit', '--limit', '1']);
    expect(limited.stdout.trim().split('\n')).toHaveLength(1);
  }, 120_000);

  it('answers usage errors with one line and exit 2, an unknown merchant with exit 1, storing nothing', async () => {
    const cases: [string[], number, RegExp][] = [
      [['admin'], 2, /^usage: ivory admin/],
      [['admin', 'delete', '--merchant', merchantId], 2, /^ivory admin: unknown command "delete"/],
      [['admin', 'block', '--merchant', merchantId], 2, /^ivory admin block: --reason TEXT is required$/],
      [['admin', 'block', '--reason', 'x'], 2, /^ivory admin block: --merchant ID is required$/],
      [['admin', 'unblock', '--merchant', merchantId, '--force'], 2, /^ivory admin unblock: Unknown option '--force'/],
      [['admin', 'audit', '--limit', 'ten'], 2, /^ivory admin audit: --limit must be a positive integer$/],
      [['admin', 'block', '--merchant', merchantId, '--reason', ''], 2, /^ivory admin block: --reason must be 1 to 500 characters/],
      [['admin', 'block', '--merchant', newId(), '--reason', 'x'], 1, /^ivory admin block: no merchant [0-9a-f-]{36}$/],
      [['admin', 'unblock', '--merchant', 'nope'], 1, /^ivory admin unblock: no merchant nope$/],
    ];
    for (const [args, code, message] of cases) {
      const run = await ivory(dataDir, args);
      expect(run.code, args.join(' ')).toBe(code);
      expect(run.stderr.trim(), args.join(' ')).toMatch(message);
      if (args.length > 1) expect(run.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
      expect(run.stdout).toBe('');
    }
    expect(await storedMerchant()).toEqual({ blocked_at: null, blocked_reason: null });
  }, 180_000);

  it('wallet: sets up the merchant service wallet per family (none removes one), switches Tron, prints the setup; bad addresses exit 2', async () => {
    const evm = '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359';
    const tron = tronAddressOfKey(`0x${'45'.repeat(32)}`);
    const set = await ivory(dataDir, ['admin', 'wallet', '--merchant', merchantId, '--evm', evm.toLowerCase(), '--tron', tron, '--tron-enabled', 'false']);
    expect(set.stderr).toBe('');
    expect(set.code).toBe(0);
    expect(JSON.parse(set.stdout)).toEqual({ merchant_id: merchantId, service_wallets: { evm, solana: null, tron }, tron_enabled: false });

    const removed = await ivory(dataDir, ['admin', 'wallet', '--merchant', merchantId, '--tron', 'none', '--tron-enabled', 'true']);
    expect(JSON.parse(removed.stdout)).toEqual({ merchant_id: merchantId, service_wallets: { evm, solana: null, tron: null }, tron_enabled: true });
    const shown = await ivory(dataDir, ['admin', 'wallet', '--merchant', merchantId]);
    expect(JSON.parse(shown.stdout)).toEqual(JSON.parse(removed.stdout));

    for (const [args, message] of [
      [['--solana', 'Sh0rt'], /^ivory admin wallet: --solana must be a base58 ed25519 public key/],
      [['--evm', '0x0000000000000000000000000000000000000000'], /^ivory admin wallet: --evm must be an EVM address/],
      [['--tron-enabled', 'maybe'], /^ivory admin wallet: --tron-enabled must be true or false$/],
    ] as const) {
      const run = await ivory(dataDir, ['admin', 'wallet', '--merchant', merchantId, ...args]);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr.trim()).toMatch(message);
    }
    const audit = await ivory(dataDir, ['admin', 'audit']);
    const actions = audit.stdout.trim().split('\n').map((line) => JSON.parse(line) as { action: string; source: string });
    expect(actions.filter((entry) => entry.action === 'merchant.payout_setup')).toHaveLength(2);
  }, 180_000);
});
