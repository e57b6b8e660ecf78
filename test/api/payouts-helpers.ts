import { randomBytes } from 'node:crypto';
import { recordTransfer } from '../../src/issuances/index.js';
import { inTransaction } from '../../src/platform/database/database.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { createOwnerWithShop } from '../support/factories.js';
import { RecordingChainAdapter } from '../support/recording-chain-adapter.js';
import { BASE, BASE_USDC, createInvoice, read } from './issuances-helpers.js';

/** The real app with the recording adapter serving live Base (chain 8453). */
export async function createLiveApp(): Promise<{ app: TestApp; adapter: RecordingChainAdapter }> {
  const adapter = new RecordingChainAdapter();
  const app = await createTestApp({}, undefined, { liveChainAdapters: new Map([[BASE, adapter]]) });
  return { app, adapter };
}

/** A live shop's open Base USDC invoice of `amount` base units, created over HTTP and allocated by the adapter. */
export async function openLiveInvoice(app: TestApp, amount: string) {
  const owner = await createOwnerWithShop(app.context.db, { sandbox: false });
  const created = await createInvoice(app, owner.key.token, owner.shop.id, { chain_id: BASE, token: BASE_USDC, amount });
  if (created.statusCode !== 202) throw new Error(`create live invoice: ${created.statusCode} ${created.body}`);
  await app.jobs.drain();
  const invoice = await read(app, owner.key.token, owner.shop.id, created.json().id);
  return { owner, token: owner.key.token, shopId: owner.shop.id, id: invoice.id as string, address: invoice.address as string };
}

/** A confirmed incoming transfer, recorded as a chain watcher records it: `recordTransfer` in its own transaction. */
export async function watcherConfirms(app: TestApp, issuanceId: string, address: string, amount: string) {
  app.clock.advance(1_000);
  return inTransaction(app.context.db, (trx) =>
    recordTransfer(trx, { now: app.clock.now(), ledger: app.context.ledger }, {
      issuanceId,
      chainId: BASE,
      txHash: `0x${randomBytes(32).toString('hex')}`,
      logIndex: 0,
      fromAddress: '0x1111111111111111111111111111111111111111',
      toAddress: address,
      amount: BigInt(amount),
      status: 'confirmed',
    }),
  );
}

export async function payoutRow(app: TestApp, issuanceId: string) {
  const rows = await app.context.db.selectFrom('payouts').selectAll().where('issuance_id', '=', issuanceId).execute();
  if (rows.length !== 1) throw new Error(`expected one payout, found ${rows.length}`);
  return rows[0] as (typeof rows)[number];
}
