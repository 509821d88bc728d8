/**
 * The login counters' table on PostgreSQL is created by whichever process asks first
 * (sign-in/counter-stores.ts): many stores made at once, as replicas starting together or a
 * first burst of login attempts do, all come up and count, even when their `CREATE TABLE IF NOT
 * EXISTS` statements collide inside PostgreSQL (23505 or 42710, once answered as a 500).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { counterStoreFor, LOGIN_COUNTERS_TABLE } from '../../src/modules/sign-in/counter-stores.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { onPostgres } from '../support/postgres.js';

let app: TestApp;

beforeAll(async () => {
  if (onPostgres) app = await createTestApp();
});
afterAll(() => app?.close());

describe.skipIf(!onPostgres)('the login counters table, created at once by many', () => {
  it('24 stores made at once on a database without the table all count', async () => {
    const db = app.database.prisma;
    const results = [];
    for (let round = 0; round < 3; round++) {
      await db.$executeRawUnsafe(`DROP TABLE IF EXISTS "${LOGIN_COUNTERS_TABLE}"`);
      const store = counterStoreFor(db);
      results.push(
        ...(await Promise.allSettled(
          Array.from({ length: 8 }, (_, i) => store.limiter({ keyPrefix: `race-${round}-${i}`, points: 5, durationSeconds: 60 })),
        )),
      );
    }
    expect(results.filter((r) => r.status === 'rejected').map((r) => String((r as PromiseRejectedResult).reason))).toEqual([]);
    const limiters = results.map(
      (r) => (r as PromiseFulfilledResult<Awaited<ReturnType<ReturnType<typeof counterStoreFor>['limiter']>>>).value,
    );
    const counted = await Promise.all(limiters.slice(-8).map((l) => l.consume('someone')));
    expect(counted.map((c) => c.remainingPoints)).toEqual(Array(8).fill(4));
  });
});
