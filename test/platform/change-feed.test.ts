/**
 * The PostgreSQL change counter (src/platform/change-feed.ts, `npm run test:postgres` only; on
 * SQLite `PRAGMA data_version` plays its part, two-process.test.ts): which commits bump the
 * version, that another client's commit moves the counter and this client's own do not, that a
 * write transaction catches up with a commit not yet announced, and that a lost listener makes the
 * app answer 503 until it has caught up, on both doors.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { LISTENER_NAME } from '../../src/platform/change-feed.js';
import { BUSY_TIMEOUT_MS, ChangesUnknownError, changeCounterOf, type Database, openDatabase } from '../../src/platform/database.js';
import { WRITE_LOCK_KEY } from '../../src/platform/database-postgres.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { onPostgres } from '../support/postgres.js';
import { expectOutcome, gql, rest } from '../support/requests.js';

let app: TestApp;
/** A second client on the app's database: another replica as far as the database can tell. */
let other: Database;

beforeAll(async () => {
  if (!onPostgres) return;
  app = await createTestApp();
  other = await openDatabase({ databaseUrl: app.config.databaseUrl, migrate: false });
});
afterAll(async () => {
  await other?.close();
  await app?.close();
});

/** Runs `sql` on a connection of its own to `database` (default: the app's). */
async function sql<T extends pg.QueryResultRow>(text: string, database = app.config.databaseUrl): Promise<T[]> {
  const client = new pg.Client({ connectionString: database });
  await client.connect();
  try {
    return (await client.query<T>(text)).rows;
  } finally {
    await client.end();
  }
}

const version = async () => Number((await sql<{ version: string }>('SELECT "version" FROM "_portcullis_change"'))[0]?.version);
const counter = () => {
  const read = changeCounterOf(app.database.prisma);
  if (!read) throw new Error('no change counter');
  return read();
};
const databaseName = () => new URL(app.config.databaseUrl).pathname.slice(1);

describe.skipIf(!onPostgres)('the PostgreSQL change feed', () => {
  it('bumps the version once per writing transaction, not for last-seen and last-used bookkeeping', async () => {
    const db = other.prisma;
    const start = await version();
    await db.$executeRawUnsafe(`UPDATE "User" SET "lastSeenAt" = now() WHERE "login" = 'admin'`);
    const key = await db.apiKey.create({ data: { orgId: 1, name: 'feed-key', role: 'Viewer', hash: 'feed-key-hash' } });
    expect(await version()).toBe(start + 1); // the new key
    await db.apiKey.updateMany({ where: { id: key.id }, data: { lastUsedAt: new Date() } });
    expect(await version()).toBe(start + 1);
    await db.$transaction(async (tx) => {
      await tx.role.create({ data: { uid: 'feed-a', orgId: 1, name: 'custom:feed-a' } });
      await tx.role.create({ data: { uid: 'feed-b', orgId: 1, name: 'custom:feed-b' } });
      await tx.user.updateMany({ where: { login: 'admin' }, data: { name: 'Feed Admin' } });
    });
    expect(await version()).toBe(start + 2);
  });

  it("moves on another client's commit, not on its own", async () => {
    const before = counter();
    await app.database.prisma.role.create({ data: { uid: 'feed-own', orgId: 1, name: 'custom:feed-own' } });
    await other.prisma.role.create({ data: { uid: 'feed-foreign', orgId: 1, name: 'custom:feed-foreign' } });
    // Notifications arrive in commit order: once the foreign one counted, the own one was seen.
    await vi.waitFor(() => expect(counter()).not.toBe(before), { timeout: 5000, interval: 5 });
    expect(counter()).toBe(before + 1);
  });

  it('a write transaction catches up with a commit whose notification has not come', async () => {
    const before = counter();
    // A bump without NOTIFY: only the version read at the start of a write transaction can see it.
    await sql('UPDATE "_portcullis_change" SET "version" = "version" + 1');
    expect(counter()).toBe(before);
    await app.database.prisma.$transaction(async () => undefined);
    expect(counter()).toBe(before + 1);
  });

  it('a lost listener: 503 DATABASE_UNAVAILABLE on both doors until it has caught up, then the change made meanwhile counts', async () => {
    const admin = inject('postgresAdminUrl');
    app.lifecycle.markReady();
    expectOutcome(await rest(app, 'GET', '/api/access-control/status'), 200);
    expect((await app.request('/api/ready', { auth: null })).status).toBe(200);
    const before = counter();
    await sql(`ALTER DATABASE "${databaseName()}" WITH ALLOW_CONNECTIONS false`, admin);
    try {
      const killed = await sql<{ ok: boolean }>(
        `SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE datname = '${databaseName()}' AND application_name = '${LISTENER_NAME}'`,
        admin,
      );
      expect(killed.length).toBeGreaterThan(0); // the app's listener (and the other client's)
      await vi.waitFor(() => expect(counter).toThrow(ChangesUnknownError), { timeout: 5000, interval: 5 });
      expectOutcome(await rest(app, 'GET', '/api/access-control/status'), 503, 'DATABASE_UNAVAILABLE');
      expectOutcome(await gql(app, '{ viewer { login } }', {}), 503, 'DATABASE_UNAVAILABLE');
      // The readiness probe takes the replica out of rotation meanwhile (liveness stays up).
      const ready = await app.request('/api/ready', { auth: null });
      expect([ready.status, await ready.json()]).toEqual([503, { ready: false, reason: 'change feed reconnecting' }]);
      // Written while the app cannot listen (the other client's pool connection is still open).
      await other.prisma.role.create({ data: { uid: 'feed-missed', orgId: 1, name: 'custom:feed-missed' } });
    } finally {
      await sql(`ALTER DATABASE "${databaseName()}" WITH ALLOW_CONNECTIONS true`, admin);
    }
    await vi.waitFor(() => expect(counter()).toBeGreaterThan(before), { timeout: 10_000, interval: 20 });
    expectOutcome(await rest(app, 'GET', '/api/access-control/status'), 200);
    expectOutcome(await gql(app, '{ viewer { login } }', {}), 200);
    const ready = await app.request('/api/ready', { auth: null });
    expect([ready.status, await ready.json()]).toEqual([200, { ready: true }]);
  });
});

describe.skipIf(!onPostgres)('the PostgreSQL write lock', () => {
  it('a write waits for another connection holding the write lock, at most the busy timeout, then 503 DATABASE_BUSY', async () => {
    const holder = new pg.Client({ connectionString: app.config.databaseUrl });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query(`SELECT pg_advisory_xact_lock(${WRITE_LOCK_KEY})`);
      const started = performance.now();
      const out = await rest(app, 'POST', '/api/access-control/roles', { json: { uid: 'feed-busy', name: 'custom:feed-busy' } });
      expect(performance.now() - started).toBeGreaterThanOrEqual(BUSY_TIMEOUT_MS - 100);
      expectOutcome(out, 503, 'DATABASE_BUSY');
    } finally {
      await holder.query('ROLLBACK');
      await holder.end();
    }
    expectOutcome(await rest(app, 'POST', '/api/access-control/roles', { json: { uid: 'feed-busy', name: 'custom:feed-busy' } }), 200);
  });
});
