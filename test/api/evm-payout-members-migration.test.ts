import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { EvmTables } from '../../src/chains/evm/relayer/index.js';
import { openEmbedded, openPostgres, type DatabaseHandle } from '../../src/platform/database/database.js';
import { migrate, migrationFiles, MIGRATIONS_DIR } from '../../src/platform/database/migrate.js';

// Migration 202611300100 (docs/decisions/0037): attempts signed before batched sweeps existed
// get their one member, so a payout's attempts are found through its members from then on;
// a batch's transaction row names no payout.

const MIGRATION = '202611300100_evm_payout_members.sql';
const databaseUrl = process.env.TEST_DATABASE_URL;
let before: string;
let handle: DatabaseHandle;
let dropDatabase: (() => Promise<void>) | undefined;

beforeAll(async () => {
  before = fs.mkdtempSync(path.join(os.tmpdir(), 'ivory-migrations-before-'));
  for (const name of migrationFiles().filter((file) => file < MIGRATION)) fs.copyFileSync(path.join(MIGRATIONS_DIR, name), path.join(before, name));
  if (databaseUrl !== undefined && databaseUrl !== '') {
    const name = `ivory_members_${randomUUID().replaceAll('-', '')}`;
    const admin = new pg.Client({ connectionString: databaseUrl });
    await admin.connect();
    await admin.query(`create database ${name}`);
    const url = new URL(databaseUrl);
    url.pathname = `/${name}`;
    handle = await openPostgres(url.toString(), 2);
    dropDatabase = async () => {
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
    };
  } else {
    handle = await openEmbedded();
  }
}, 120_000);

afterAll(async () => {
  await handle?.close();
  await dropDatabase?.();
  fs.rmSync(before, { recursive: true, force: true });
});

it('every attempt signed before the migration gets its one member; a batch row may then name no payout', async () => {
  await migrate(handle.db, before);
  const evm = handle.db.withTables<EvmTables>();
  const payoutId = randomUUID();
  const row = (nonce: number, replacement: number) => ({
    id: randomUUID(),
    payout_id: payoutId,
    chain_id: 31337,
    relayer: '0x000000000000000000000000000000000000bEEF',
    nonce: BigInt(nonce),
    replacement,
    raw_transaction: '0x00',
    tx_hash: `0x${nonce}${replacement}`,
    gas_limit: 100_000n,
    max_fee_per_gas: 1n,
    max_priority_fee_per_gas: 1n,
    status: 'replaced' as const,
    created_at: new Date(),
    updated_at: new Date(),
  });
  // Two attempts of one payout, the second with a fee bump: two members, one per nonce.
  await evm.insertInto('evm_payout_transactions').values([row(4, 0), row(7, 0), row(7, 1)]).execute();

  // This migration first; those after it (other modules') follow.
  expect((await migrate(handle.db))[0]).toBe(MIGRATION);
  const members = await evm.selectFrom('evm_payout_members').select(['chain_id', 'relayer', 'nonce', 'payout_id', 'position']).orderBy('nonce').execute();
  expect(members.map((member) => ({ ...member, chain_id: Number(member.chain_id), nonce: String(member.nonce) }))).toEqual([
    { chain_id: 31337, relayer: '0x000000000000000000000000000000000000bEEF', nonce: '4', payout_id: payoutId, position: 0 },
    { chain_id: 31337, relayer: '0x000000000000000000000000000000000000bEEF', nonce: '7', payout_id: payoutId, position: 0 },
  ]);
  await evm.insertInto('evm_payout_transactions').values({ ...row(8, 0), payout_id: null }).execute();
  expect(await evm.selectFrom('evm_payout_transactions').select('payout_id').where('nonce', '=', '8').execute()).toEqual([{ payout_id: null }]);
});
