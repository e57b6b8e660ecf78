/* global process */
// The real app for the benchmark, built from dist/ exactly as `ivory serve`
// builds it, in a child process of bench/run.mjs so that the load generator
// never shares an event loop with the server it measures.
//
// IPC protocol (parent → child → parent):
//   start                                  → { type: 'ready', url, kind, shopId, apiKey, publicId, invoiceBody }
//   { type: 'start-jobs' }                 → { type: 'jobs-started', url }   (rebuilt with runJobs: true)
//   { type: 'write-events', count, batch } → { type: 'events-written', firstCommitAt, lastCommitAt }
//   { type: 'seed-list', count }           → { type: 'list-seeded', shopId, apiKey, deepCursor, externalId, oneId, seconds }
//   { type: 'stop' }                       → exits
// Any failure answers { type: 'error', message } instead.
import { buildApp } from '../dist/app.js';
import { appendEvent } from '../dist/events/index.js';
import { loadConfig } from '../dist/platform/config.js';
import { newId, newToken, sha256Hex } from '../dist/platform/crypto.js';
import { inTransaction, openEmbedded, openPostgres } from '../dist/platform/database/database.js';
import { encodeIssuanceCursor } from '../dist/issuances/issuance-list-query.js';
import { sql } from 'kysely';

/** A sandbox invoice on Base USDC, the network the issuance tests use. */
const INVOICE_BODY = { chain_id: 8453, token: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', amount: '1000000' };
const BENCH_SECRET_KEY = 'be'.repeat(32);

const config = loadConfig({
  HOST: '127.0.0.1',
  PORT: '0',
  RATE_LIMIT_PER_MINUTE: '0',
  RATE_LIMIT_WRITES_PER_MINUTE: '0',
  LOG_LEVEL: process.env.BENCH_LOG_LEVEL || 'silent',
  SECRET_KEY: BENCH_SECRET_KEY,
  WEBHOOK_ALLOW_PRIVATE: 'true',
  ...(process.env.BENCH_DATABASE_URL ? { DATABASE_URL: process.env.BENCH_DATABASE_URL } : { DATA_DIR: process.env.BENCH_APP_DIR }),
});

// Opened here rather than by buildApp, so that the app can be rebuilt with its
// jobs running (webhook section) on the same storage.
const database = config.databaseUrl === undefined ? await openEmbedded(config.dataDir) : await openPostgres(config.databaseUrl);

let app = await buildApp({ config, database, runJobs: false });
let url = await listen(app);
const seeded = await seed(app);

process.on('disconnect', () => void stop());
process.on('SIGTERM', () => void stop());
process.on('message', (message) => void handle(message));
process.send?.({ type: 'ready', url, kind: database.kind, invoiceBody: INVOICE_BODY, ...seeded });

async function handle(message) {
  try {
    switch (message?.type) {
      case 'start-jobs':
        // The invoice bench left address allocations pending; work them off
        // first so that they do not compete with webhook delivery.
        await drainAll(app);
        await app.close();
        app = await buildApp({ config, database, runJobs: true });
        url = await listen(app);
        process.send?.({ type: 'jobs-started', url });
        return;
      case 'write-events':
        process.send?.({ type: 'events-written', ...(await writeEvents(app, seeded.shopId, message.count, message.batch, message.writers)) });
        return;
      case 'seed-list':
        process.send?.({ type: 'list-seeded', ...(await seedIssuanceList(app, message.count)) });
        return;
      case 'stop':
        await stop();
        return;
    }
  } catch (error) {
    process.send?.({ type: 'error', message: error instanceof Error ? `${error.message}\n${error.stack}` : String(error) });
  }
}

async function listen(current) {
  await current.server.listen({ host: config.host, port: 0 });
  return `http://127.0.0.1:${current.server.server.address().port}`;
}

/**
 * The test factories' rows (user, merchant with owner grant, sandbox shop,
 * read+write API key), then one invoice through the HTTP API whose address is
 * allocated, for the checkout route. The merchant's active-invoice limit is
 * raised as the operator API would, since the invoice bench creates thousands.
 */
async function seed(current) {
  const { db } = current.context;
  const userId = newId();
  const merchantId = newId();
  const shopId = newId();
  const apiKey = newToken('ivk_');
  await db.insertInto('users').values({ id: userId, onboarded_at: new Date(), blocked_at: null, blocked_reason: null }).execute();
  await db
    .insertInto('merchants')
    .values({ id: merchantId, name: 'Bench merchant', active_invoice_limit: 1_000_000_000, deposit_address_limits: null })
    .execute();
  await db.insertInto('grants').values({ id: newId(), merchant_id: merchantId, user_id: userId, role: 'owner', shop_id: null }).execute();
  await db
    .insertInto('shops')
    .values({
      id: shopId,
      merchant_id: merchantId,
      name: 'Bench shop',
      sandbox: true,
      recipient: '0x000000000000000000000000000000000000dEaD',
      delegate: null,
      solana_recipient: null,
      tron_recipient: null,
      branding_name: null,
      branding_logo_asset_id: null,
    })
    .execute();
  await db
    .insertInto('api_keys')
    .values({
      id: newId(),
      shop_id: shopId,
      merchant_id: merchantId,
      name: 'bench key',
      token_hash: sha256Hex(apiKey),
      token_prefix: apiKey.slice(0, 12),
      scopes: JSON.stringify(['read', 'write']),
      allowed_ips: JSON.stringify([]),
      enabled: true,
    })
    .execute();

  const created = await current.server.inject({
    method: 'POST',
    url: `/api/v1/shops/${shopId}/invoices`,
    headers: { authorization: `Bearer ${apiKey}`, 'idempotency-key': `bench-seed-${newId()}` },
    payload: INVOICE_BODY,
  });
  if (created.statusCode !== 202) throw new Error(`seeding an invoice answered ${created.statusCode} ${created.body}`);
  await current.jobs.drain();
  return { shopId, apiKey, publicId: created.json().public_id ?? null };
}

/**
 * `count` business events for the shop through the outbox (appendEvent, which
 * fans out deliveries in the same transaction), `batch` per transaction.
 */
/**
 * Writes `count` events in transactions of `batch`, from `writers` concurrent
 * writers (as several API processes would), the way domain code does.
 */
async function writeEvents(current, shopId, count, batch, writers = 1) {
  const { db, clock, ledger } = current.context;
  let firstCommitAt;
  let lastCommitAt;
  let next = 0;
  const writer = async () => {
    while (next < count) {
      const start = next;
      const size = Math.min(batch, count - start);
      next += size;
      await inTransaction(db, async (trx) => {
        for (let index = 0; index < size; index += 1) {
          await appendEvent(trx, { now: clock.now(), subscribers: ledger.eventSubscribers }, {
            shopId,
            type: 'invoice.closed',
            data: { issuance_id: newId(), shop_id: shopId, external_id: null, type: 'invoice', bench_sequence: start + index },
          });
        }
      });
      lastCommitAt = Date.now();
      firstCommitAt ??= lastCommitAt;
    }
  };
  await Promise.all(Array.from({ length: writers }, writer));
  return { firstCommitAt, lastCommitAt };
}

/**
 * A shop of its own (its own merchant, a read key) with `count` issuances for
 * GET /shops/:id/issuances: 1% of them the options of groups of two, the rest
 * ungrouped, three to a creation instant (ties broken by id), one in twenty a
 * deposit, a quarter on Arbitrum, mostly settled, a few `reconciling`, each
 * with external_id `order-<n>`. Three statements of INSERT … SELECT
 * generate_series. Answers the cursor of the page that starts 90% deep.
 */
async function seedIssuanceList(current, count) {
  const { db } = current.context;
  const started = Date.now();
  const merchantId = newId();
  const shopId = newId();
  const apiKey = newToken('ivk_');
  const groupCount = Math.floor(count / 200);
  const singles = count - 2 * groupCount;
  await db.insertInto('merchants').values({ id: merchantId, name: 'Bench list merchant', active_invoice_limit: 1_000_000_000, deposit_address_limits: null }).execute();
  await db
    .insertInto('shops')
    .values({ id: shopId, merchant_id: merchantId, name: 'Bench list shop', sandbox: true, recipient: '0x000000000000000000000000000000000000dEaD', delegate: null, solana_recipient: null, tron_recipient: null, branding_name: null, branding_logo_asset_id: null })
    .execute();
  await db
    .insertInto('api_keys')
    .values({ id: newId(), shop_id: shopId, merchant_id: merchantId, name: 'bench list key', token_hash: sha256Hex(apiKey), token_prefix: apiKey.slice(0, 12), scopes: JSON.stringify(['read']), allowed_ips: JSON.stringify([]), enabled: true })
    .execute();
  // Creation instants a second apart going back from now, at millisecond precision as the app writes them.
  const base = new Date(Math.floor(Date.now() / 1000) * 1000).toISOString();
  await sql`
    insert into issuances (id, public_id, shop_id, merchant_id, kind, sandbox, chain_id, family, token, token_decimals, amount,
      status, payout_target, fee_bps, fee_minimum, fee_maximum, external_id, expires_at, cancelled_at, funded_at, created_at, updated_at)
    select gen_random_uuid(), 'bl' || replace(${shopId}, '-', '') || n, ${shopId}, ${merchantId},
      case when n % 20 = 0 then 'deposit' else 'invoice' end, true,
      case when n % 4 = 0 then 42161 else 8453 end, 'evm',
      case when n % 4 = 0 then '0xaf88d065e77c8cC2239327C5EDb3A432268e5831' else '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913' end, 6,
      case when n % 20 = 0 then null else 1000000 end,
      case when n % 5000 = 1 then 'reconciling' when n % 10 < 7 then 'settled' when n % 100 = 9 then 'funded' else 'open' end,
      'address', 50, 0, 0, 'order-' || n,
      case when n % 20 = 0 then null else at + interval '30 days' end,
      case when n % 10 = 8 and n % 20 <> 0 then at + interval '1 hour' end,
      case when n % 5000 = 1 or n % 10 < 7 or n % 100 = 9 then at + interval '1 minute' end,
      at, at
    from (select n, cast(${base} as timestamptz) - (n / 3) * interval '1 second' as at from generate_series(1, ${singles}) as n) as seq`.execute(db);
  await sql`
    insert into issuance_groups (id, public_id, shop_id, merchant_id, kind, sandbox, amount, external_id, expires_at, created_at)
    select gen_random_uuid(), 'bg' || replace(${shopId}, '-', '') || n, ${shopId}, ${merchantId}, 'invoice', true, '1', 'cart-' || n,
      at + interval '30 days', at
    from (select n, cast(${base} as timestamptz) - (n * 200 / 3) * interval '1 second' as at from generate_series(1, ${groupCount}) as n) as seq`.execute(db);
  await sql`
    insert into issuances (id, public_id, shop_id, merchant_id, group_id, group_position, kind, sandbox, chain_id, family, token, token_decimals, amount,
      status, payout_target, fee_bps, fee_minimum, fee_maximum, external_id, expires_at, created_at, updated_at)
    select gen_random_uuid(), g.public_id || '-' || position, g.shop_id, g.merchant_id, g.id, position, 'invoice', true,
      case position when 0 then 8453 else 42161 end, 'evm',
      case position when 0 then '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913' else '0xaf88d065e77c8cC2239327C5EDb3A432268e5831' end, 6, 1000000,
      'open', 'address', 50, 0, 0, g.external_id, g.expires_at, g.created_at, g.created_at
    from issuance_groups g cross join generate_series(0, 1) as position
    where g.shop_id = ${shopId}`.execute(db);
  await sql`analyze issuances`.execute(db);
  await sql`analyze issuance_groups`.execute(db);
  const { rows } = await sql`
    select to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as created_at, id
    from (select id, created_at from issuances where shop_id = ${shopId} and group_id is null
          union all select id, created_at from issuance_groups where shop_id = ${shopId}) as listed
    order by created_at desc, id desc offset ${Math.floor((singles + groupCount) * 0.9)} limit 1`.execute(db);
  const [deep] = rows;
  if (deep === undefined) throw new Error('seed-list: no row 90% deep');
  const externalId = `order-${Math.floor(singles / 2)}`;
  const one = await db.selectFrom('issuances').select('id').where('shop_id', '=', shopId).where('external_id', '=', externalId).executeTakeFirstOrThrow();
  return { shopId, apiKey, deepCursor: encodeIssuanceCursor({ createdAt: deep.created_at, id: deep.id }), externalId, oneId: one.id, seconds: (Date.now() - started) / 1000 };
}

async function drainAll(current) {
  for (;;) {
    try {
      await current.jobs.drain();
      return;
    } catch (error) {
      // drain() gives up after 100 rounds of bounded batches; thousands of rows need more.
      if (!(error instanceof Error) || !error.message.includes('did not drain')) throw error;
    }
  }
}

async function stop() {
  try {
    await app.close();
    await database.close();
  } finally {
    process.exit(0);
  }
}
