import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csvField } from '../../src/payments/export-payments-csv.js';
import { newId } from '../../src/platform/crypto.js';
import { createTestApp, authed, type TestApp } from '../support/app.js';
import { createApiKey, createOwnerWithShop } from '../support/factories.js';
import { BASE, BASE_USDC, createDeposit, openInvoice, pay, payoutsOf, simulate, transfersOf, usdc } from './issuances-helpers.js';

// SPEC "Shops": GET /shops/{shop_id}/export.csv (read access; CSV of payment history for accounting).
// RFC 4180 for the format.

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(async () => {
  await app.close();
});

const COLUMNS = [
  'kind',
  'id',
  'issuance_id',
  'public_id',
  'external_id',
  'chain_id',
  'token',
  'symbol',
  'amount',
  'amount_base_units',
  'fee',
  'to_recipient',
  'to_operator',
  'status',
  'disposition',
  'tx_hash',
  'created_at',
  'confirmed_at',
];

function exportCsv(token: string, shopId: string) {
  return app.request({ method: 'GET', url: `/api/v1/shops/${shopId}/export.csv`, headers: authed(token) });
}

/** A strict RFC 4180 reader: CRLF record ends, quoted fields with doubled quotes. Throws on anything else. */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let index = 0;
  while (index < text.length) {
    let field = '';
    if (text[index] === '"') {
      index += 1;
      for (;;) {
        if (index >= text.length) throw new Error('unterminated quoted field');
        if (text[index] === '"') {
          if (text[index + 1] === '"') {
            field += '"';
            index += 2;
            continue;
          }
          index += 1;
          break;
        }
        field += text[index];
        index += 1;
      }
    } else {
      while (index < text.length && text[index] !== ',' && text[index] !== '\r') {
        if (text[index] === '"' || text[index] === '\n') throw new Error(`bare ${JSON.stringify(text[index])} at ${index}`);
        field += text[index];
        index += 1;
      }
    }
    record.push(field);
    if (text[index] === ',') {
      index += 1;
    } else if (text.startsWith('\r\n', index)) {
      records.push(record);
      record = [];
      index += 2;
    } else {
      throw new Error(`expected , or CRLF at ${index}`);
    }
  }
  if (record.length > 0) throw new Error('last record without CRLF');
  return records;
}

function rowsByColumn(records: string[][]): Record<string, string>[] {
  const [header, ...rows] = records;
  expect(header).toEqual(COLUMNS);
  return rows.map((row) => {
    expect(row).toHaveLength(COLUMNS.length);
    return Object.fromEntries(COLUMNS.map((column, position) => [column, row[position]!]));
  });
}

describe('GET /shops/{shop_id}/export.csv', () => {
  it('one row per transfer and payout, oldest first, with decimal amounts, base units and the fee split', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const token = owner.key.token;
    const invoice = await openInvoice(app, token, owner.shop.id, usdc(100), { external_id: 'order-7' });
    await pay(app, token, owner.shop.id, invoice.id, usdc(40));
    app.clock.advance(1000);
    await pay(app, token, owner.shop.id, invoice.id, usdc(60.5));
    app.clock.advance(1000);
    const other = await openInvoice(app, token, owner.shop.id, usdc(10));
    await pay(app, token, owner.shop.id, other.id, usdc(1));

    const response = await exportCsv(token, owner.shop.id);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(response.headers['content-disposition']).toBe(`attachment; filename="${owner.shop.id}-payments.csv"`);
    const rows = rowsByColumn(parseCsv(response.body));

    const transfers = [...(await transfersOf(app, invoice.id)), ...(await transfersOf(app, other.id))];
    const payouts = await payoutsOf(app, invoice.id);
    expect(rows).toHaveLength(transfers.length + payouts.length);
    expect(rows).toHaveLength(4);
    // Oldest first: (created_at, id) ascending; the payout shares its instant with the transfer that funded the invoice.
    const expected = [...transfers, ...payouts]
      .sort((a, b) => a.created_at.getTime() - b.created_at.getTime() || (a.id < b.id ? -1 : 1))
      .map((row) => row.id);
    expect(rows.map((row) => row.id)).toEqual(expected);

    const byId = (id: string) => rows.find((row) => row.id === id);
    const forty = byId(transfers[0]!.id);
    const rest = byId(transfers[1]!.id);
    const payout = byId(payouts[0]!.id);
    const one = byId(transfers[2]!.id);
    expect(forty).toMatchObject({
      kind: 'transfer',
      issuance_id: invoice.id,
      // A public id is random base64url: one in 64 starts with '-', which the CSV neutralises like any cell.
      public_id: invoice.public_id.startsWith('-') ? `'${invoice.public_id}` : invoice.public_id,
      external_id: 'order-7',
      chain_id: String(BASE),
      token: BASE_USDC,
      symbol: 'USDC',
      amount: '40',
      amount_base_units: usdc(40),
      fee: '',
      to_recipient: '',
      to_operator: '',
      status: 'confirmed',
      disposition: 'credited',
    });
    expect(forty!.tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(forty!.confirmed_at).toMatch(/Z$/);
    expect(rest).toMatchObject({ amount: '60.5', amount_base_units: usdc(60.5) });
    expect(payout).toMatchObject({
      kind: 'payout',
      id: payouts[0]!.id,
      amount: '100.5',
      amount_base_units: usdc(100.5),
      fee: '0.5',
      to_recipient: '99.5',
      to_operator: '1',
      // A sandbox shop: the payout is simulated, never sent (decision 0022).
      status: 'simulated',
      disposition: '',
      tx_hash: '',
      confirmed_at: '',
    });
    expect(one).toMatchObject({ kind: 'transfer', issuance_id: other.id, external_id: '', amount: '1' });
  });

  it('a settled sandbox invoice\'s payout row is `simulated` with no tx hash, not `scheduled` for ever (issue 20, decision 0022)', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const token = owner.key.token;
    const invoice = await openInvoice(app, token, owner.shop.id, usdc(100));
    await pay(app, token, owner.shop.id, invoice.id, usdc(100));
    const closed = await simulate(app, token, owner.shop.id, { issuance_id: invoice.id, kind: 'invoice.closed', amount: '0' });
    expect(closed.statusCode, closed.body).toBe(200);

    const rows = rowsByColumn(parseCsv((await exportCsv(token, owner.shop.id)).body));
    const [payout] = await payoutsOf(app, invoice.id);
    expect(rows.find((row) => row.id === payout!.id)).toMatchObject({ kind: 'payout', status: 'simulated', tx_hash: '', confirmed_at: '', to_recipient: '99.5' });
    expect(rows.find((row) => row.kind === 'transfer')).toMatchObject({ status: 'confirmed', disposition: 'credited' });
    expect(payout!.status).toBe('scheduled');
  });

  it('RFC 4180 quoting of an external_id with comma, quote and line breaks; CRLF record ends', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const invoice = await openInvoice(app, owner.key.token, owner.shop.id, usdc(10), { external_id: 'a,b "quoted"' });
    await pay(app, owner.key.token, owner.shop.id, invoice.id, usdc(2));
    const first = (await exportCsv(owner.key.token, owner.shop.id)).body;
    expect(first).toContain(',"a,b ""quoted""",');
    expect(rowsByColumn(parseCsv(first))[0]!.external_id).toBe('a,b "quoted"');

    // The API refuses control characters in external_id; a stored value with line breaks
    // (older data, another writer) must still come out as one field.
    const externalId = 'a,b "quoted"\r\nnext line\nand more';
    await app.context.db.updateTable('issuances').set({ external_id: externalId }).where('id', '=', invoice.id).execute();
    const body = (await exportCsv(owner.key.token, owner.shop.id)).body;
    expect(body).toContain('"a,b ""quoted""\r\nnext line\nand more"');
    expect(body.endsWith('\r\n')).toBe(true);
    const rows = rowsByColumn(parseCsv(body));
    expect(rows).toHaveLength(1);
    expect(rows[0]!.external_id).toBe(externalId);
  });

  it('spreadsheet formulas are neutralised with a leading apostrophe (CSV injection)', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const formulas = ['=HYPERLINK("http://evil.example","x")', '+1+1', '-2+3', '@SUM(A1:A2)'];
    for (const externalId of formulas) {
      const invoice = await openInvoice(app, owner.key.token, owner.shop.id, usdc(10), { external_id: externalId });
      await pay(app, owner.key.token, owner.shop.id, invoice.id, usdc(1));
      app.clock.advance(1000);
    }
    const body = (await exportCsv(owner.key.token, owner.shop.id)).body;
    const rows = rowsByColumn(parseCsv(body));
    expect(rows.map((row) => row.external_id)).toEqual(formulas.map((formula) => `'${formula}`));
    expect(body).toContain('"\'=HYPERLINK(""http://evil.example"",""x"")"');
    // Ivory's own values are untouched: amounts, ids and hashes never start with a formula character.
    for (const row of rows) {
      expect(row.amount).toBe('1');
      expect(row.tx_hash).toMatch(/^0x/);
    }
  });

  it('csvField: plain values unchanged; quoting and neutralisation rules', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('')).toBe('');
    expect(csvField('100.5')).toBe('100.5');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('cr\rhere')).toBe('"cr\rhere"');
    expect(csvField('=1')).toBe("'=1");
    expect(csvField('-1,2')).toBe('"\'-1,2"');
    expect(csvField('a=1')).toBe('a=1');
  });

  it('streams a long history in pages: 1,200 transfers give 1,201 lines, each exactly once', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const created = await createDeposit(app, owner.key.token, owner.shop.id, { chain_id: BASE, token: BASE_USDC });
    expect(created.statusCode, created.body).toBe(202);
    const deposit = created.json();
    await app.jobs.drain();
    // Rows written straight into the ledger: 1,200 simulate calls would only slow the test down.
    // Seven transfers share each millisecond, so page boundaries (500) fall inside runs of equal created_at.
    const start = app.clock.now().getTime();
    const ids: string[] = [];
    for (let batch = 0; batch < 1200; batch += 200) {
      const values = Array.from({ length: 200 }, (_, offset) => {
        const position = batch + offset;
        const id = newId();
        ids.push(id);
        const at = new Date(start + Math.floor(position / 7));
        return {
          id,
          issuance_id: deposit.id,
          shop_id: owner.shop.id,
          sandbox: true,
          chain_id: BASE,
          token: BASE_USDC,
          tx_hash: `0x${position.toString(16).padStart(64, '0')}`,
          log_index: 0,
          amount: '1000000',
          status: 'confirmed' as const,
          disposition: 'credited' as const,
          confirmed_at: at,
          created_at: at,
        };
      });
      await app.context.db.insertInto('transfers').values(values).execute();
    }

    const response = await exportCsv(owner.key.token, owner.shop.id);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
    // A stream: no Content-Length is known up front.
    expect(response.headers['content-length']).toBeUndefined();
    const lines = response.body.split('\r\n').filter((line) => line !== '');
    expect(lines.length).toBe(1201);
    const rows = rowsByColumn(parseCsv(response.body));
    expect(new Set(rows.map((row) => row.id))).toEqual(new Set(ids));
    expect(rows.every((row) => row.amount === '1' && row.kind === 'transfer')).toBe(true);
  });

  it('auth: a write-only key is forbidden, another merchant\'s key finds no shop, no credentials 401 — as JSON errors', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const writeKey = await createApiKey(app.context.db, { id: owner.shop.id, merchantId: owner.merchant.id }, { scopes: ['write'] });
    const readKey = await createApiKey(app.context.db, { id: owner.shop.id, merchantId: owner.merchant.id }, { scopes: ['read'] });
    const other = await createOwnerWithShop(app.context.db);
    expect((await exportCsv(readKey.token, owner.shop.id)).statusCode).toBe(200);
    expect((await exportCsv(owner.session.token, owner.shop.id)).statusCode).toBe(200);
    for (const [token, status, code] of [
      [writeKey.token, 403, 'forbidden'],
      // Another merchant's key: the shop answers as if absent (decision 0016).
      [other.key.token, 404, 'shop_not_found'],
    ] as const) {
      const response = await exportCsv(token, owner.shop.id);
      expect(response.statusCode).toBe(status);
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      expect(response.json().error.code).toBe(code);
    }
    const anonymous = await app.request({ method: 'GET', url: `/api/v1/shops/${owner.shop.id}/export.csv` });
    expect(anonymous.statusCode).toBe(401);
  });

  it('holds exactly what the payments list shows, row for row, across all of the list\'s pages (issue 25, Payments: "CSV export of exactly what the filter shows")', async () => {
    // SPEC names no filter on GET /shops/{id}/payments (only limit) nor on export.csv: what the
    // Payments screen shows is the whole history, page by page, and the export is that history.
    const owner = await createOwnerWithShop(app.context.db);
    const token = owner.key.token;
    for (const amount of [3, 7]) {
      const invoice = await openInvoice(app, token, owner.shop.id, usdc(amount));
      await pay(app, token, owner.shop.id, invoice.id, usdc(1));
      app.clock.advance(1000);
      await pay(app, token, owner.shop.id, invoice.id, usdc(amount - 1));
      app.clock.advance(1000);
    }
    const listed: { id: string; type: string; amount: string; amount_decimal: string; status: string; issuance_id: string; created_at: string }[] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor === null ? 'limit=2' : `limit=2&cursor=${cursor}`;
      const page = await app.request({ method: 'GET', url: `/api/v1/shops/${owner.shop.id}/payments?${query}`, headers: authed(token) });
      expect(page.statusCode).toBe(200);
      const body = page.json<{ data: typeof listed; next_cursor: string | null }>();
      listed.push(...body.data);
      cursor = body.next_cursor;
    } while (cursor !== null);
    expect(listed).toHaveLength(6);
    const rows = rowsByColumn(parseCsv((await exportCsv(token, owner.shop.id)).body));
    // The list is newest first, the export oldest first: the same rows, in reverse.
    const fromList = [...listed].reverse().map((item) => [item.type, item.id, item.issuance_id, item.amount_decimal, item.amount, item.status, item.created_at]);
    expect(rows.map((row) => [row.kind, row.id, row.issuance_id, row.amount, row.amount_base_units, row.status, row.created_at])).toEqual(fromList);
  });

  it('an empty history is the header row alone', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const body = (await exportCsv(owner.key.token, owner.shop.id)).body;
    expect(body).toBe(`${COLUMNS.join(',')}\r\n`);
  });
});
