import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createTestApp, type TestApp } from '../support/app.js';
import { freshDatabase } from '../support/database.js';
import { inTransaction } from '../../src/platform/database/database.js';

describe('HTTP core', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp();
  });
  afterAll(async () => app.close());

  it('answers GET /healthz at the root with {status: ok} (SPEC "Public")', async () => {
    const response = await app.request({ method: 'GET', url: '/healthz' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: 'ok' });
  });

  it('answers unknown routes 404 in the error envelope, message repeating the code (SPEC "Error envelope")', async () => {
    const response = await app.request({ method: 'GET', url: '/api/v1/no-such-thing' });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ error: { code: 'not_found', message: 'not_found' } });
  });

  it('serves an OpenAPI 3.1 document at {base_url}/openapi.json', async () => {
    const response = await app.request({ method: 'GET', url: '/api/v1/openapi.json' });
    expect(response.statusCode).toBe(200);
    expect(response.json().openapi).toBe('3.1.0');
  });
});

describe('storage', () => {
  it('runs 50 concurrent read-modify-write transactions under FOR UPDATE without losing one (ARCHITECTURE "Storage traps")', async () => {
    const database = await freshDatabase();
    try {
      const { db } = database;
      await sql`create table counter (id int primary key, value int not null)`.execute(db);
      await sql`insert into counter values (1, 0)`.execute(db);
      await Promise.all(
        Array.from({ length: 50 }, () =>
          inTransaction(db, async (trx) => {
            const row = await sql<{ value: number }>`select value from counter where id = 1 for update`.execute(trx);
            await new Promise((resolve) => setTimeout(resolve, 1));
            await sql`update counter set value = ${(row.rows[0]?.value ?? 0) + 1} where id = 1`.execute(trx);
          }),
        ),
      );
      const final = await sql<{ value: number }>`select value from counter where id = 1`.execute(db);
      expect(final.rows[0]?.value).toBe(50);
    } finally {
      await database.close();
    }
  });

  it('retries a transaction after a serialization failure, invisibly to the caller', async () => {
    const database = await freshDatabase();
    try {
      let calls = 0;
      const result = await inTransaction(database.db, async () => {
        calls += 1;
        if (calls < 3) throw Object.assign(new Error('could not serialize access'), { code: '40001' });
        return 'done';
      });
      expect(result).toBe('done');
      expect(calls).toBe(3);
    } finally {
      await database.close();
    }
  });
});
