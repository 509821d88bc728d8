/**
 * Replicas under failure (`npm run test:postgres` only: on SQLite there are no
 * replicas, one instance per file). A PostgreSQL server of this file's own (so stopping it
 * disturbs no other test file):
 * - a replica killed (SIGKILL, the real server process) while writes stream into it and reads
 *   into the other: every write it acknowledged is in the database afterwards, and the other
 *   replica kept answering 200 throughout;
 * - PostgreSQL stopped and started again: while it is down both replicas answer 503 (requests
 *   DATABASE_UNAVAILABLE, readiness not ready), never a cached answer; a user demoted through
 *   one replica while the other cannot reconnect (its database role refused logins) is never
 *   served her old permission by that other one: 503 until its change feed has caught up, then
 *   the new answer, on REST and GraphQL.
 * Every wait is for a state (an answer, readiness), never a fixed sleep.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { EmbeddedPostgresServer } from '../../scripts/embedded-postgres.js';
import { type App, createApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { seed } from '../../src/kernel/seed.js';
import { type Database, openDatabase } from '../../src/platform/database.js';
import { createLogger } from '../../src/platform/logger.js';
import { ADMIN, authHeader, type Credentials } from '../support/app.js';
import { clusterFolderRoot, onPostgres } from '../support/postgres.js';
import { killServers, startServer } from '../support/server.js';

const PASSWORD = randomBytes(12).toString('hex');
let dir: string;
let server: EmbeddedPostgresServer;
let port: number;
let start: (port?: number) => Promise<EmbeddedPostgresServer>;

async function admin<T extends pg.QueryResultRow>(text: string, database = 'postgres'): Promise<T[]> {
  const client = new pg.Client({ connectionString: server.url(database) });
  await client.connect();
  try {
    return (await client.query<T>(text)).rows;
  } finally {
    await client.end();
  }
}

beforeAll(async () => {
  if (!onPostgres) return;
  // Loaded here only: the server package installs exit hooks (test/support/postgres.ts).
  const { startEmbeddedPostgres } = await import('../../scripts/embedded-postgres.js');
  dir = mkdtempSync(join(clusterFolderRoot(), 'portcullis-pg-failures-'));
  chmodSync(dir, 0o755);
  start = (at) => startEmbeddedPostgres({ dataDir: join(dir, 'data'), password: PASSWORD, fast: true, ...(at && { port: at }) });
  server = await start();
  port = server.port;
}, 120_000);
afterAll(async () => {
  killServers();
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A request to a replica in this process: status and JSON body. */
async function call(app: App, path: string, init: { method?: string; json?: unknown; auth?: Credentials } = {}) {
  const headers = new Headers({ authorization: authHeader(init.auth ?? ADMIN) });
  if (init.json !== undefined) headers.set('content-type', 'application/json');
  const res = await app.yoga.fetch(`http://test${path}`, {
    method: init.method ?? 'GET',
    headers,
    ...(init.json !== undefined && { body: JSON.stringify(init.json) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> & { code?: string } };
}

describe.skipIf(!onPostgres)('a replica killed under load', () => {
  it('every acknowledged write is there afterwards; the other replica answers throughout', async () => {
    await admin('CREATE DATABASE "killed"');
    const env = { DATABASE_URL: server.url('killed'), ADMIN_PASSWORD: ADMIN.password, ADMIN_LOGIN: ADMIN.login, TRUST_PROXY: 'true' };
    const doomed = await startServer(env);
    const survivor = await startServer(env);
    const basic = authHeader(ADMIN);
    const created = await fetch(`http://127.0.0.1:${survivor.port}/api/auth/keys`, {
      method: 'POST',
      headers: { authorization: basic, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'load', role: 'Admin' }),
    });
    expect(created.status).toBe(200);
    const bearer = `Bearer ${((await created.json()) as { key: string }).key}`;
    const acknowledged: string[] = [];
    const survivorStatuses: number[] = [];
    let stop = false;
    const writer = async (w: number) => {
      for (let i = 0; !stop; i++) {
        const uid = `killed-${w}-${i}`;
        try {
          const res = await fetch(`http://127.0.0.1:${doomed.port}/api/access-control/roles`, {
            method: 'POST',
            headers: { authorization: bearer, 'content-type': 'application/json' },
            body: JSON.stringify({ uid, name: `custom:${uid}`, permissions: [{ action: 'teams:read', scope: 'teams:*' }] }),
          });
          if (res.status === 200) acknowledged.push(uid);
        } catch {
          return; // the connection died with the replica: that write was not acknowledged
        }
      }
    };
    const reader = async () => {
      while (!stop) {
        const res = await fetch(`http://127.0.0.1:${survivor.port}/api/access-control/user/permissions`, {
          headers: { authorization: bearer },
        });
        survivorStatuses.push(res.status);
        await res.arrayBuffer();
      }
    };
    const load = [...Array.from({ length: 8 }, (_, w) => writer(w)), reader(), reader()];
    await vi.waitFor(() => expect(acknowledged.length).toBeGreaterThanOrEqual(30), { timeout: 60_000, interval: 10 });
    process.kill(-(doomed.proc.pid as number), 'SIGKILL');
    await doomed.exited;
    const countAtKill = survivorStatuses.length;
    await vi.waitFor(() => expect(survivorStatuses.length).toBeGreaterThan(countAtKill + 50), { timeout: 30_000, interval: 10 });
    stop = true;
    await Promise.all(load);

    expect(survivorStatuses.filter((s) => s !== 200)).toEqual([]);
    const rows = await admin<{ uid: string }>(`SELECT "uid" FROM "Role" WHERE "uid" LIKE 'killed-%'`, 'killed');
    const stored = new Set(rows.map((r) => r.uid));
    expect(acknowledged.filter((uid) => !stored.has(uid))).toEqual([]);
    // And the survivor serves them (its own answer, not only the table).
    const last = acknowledged.at(-1) as string;
    const res = await fetch(`http://127.0.0.1:${survivor.port}/api/access-control/roles/${last}`, { headers: { authorization: bearer } });
    expect(res.status).toBe(200);
  }, 120_000);
});

describe.skipIf(!onPostgres)('PostgreSQL restarted', () => {
  let oneDb: Database;
  let twoDb: Database;
  let one: App;
  let two: App;

  afterAll(async () => {
    await twoDb?.close();
    await oneDb?.close();
  });

  it('503 while it is down, then fresh answers: a demotion made while one replica cannot reconnect is never served stale', async () => {
    await admin('CREATE DATABASE "restarted"');
    // Replica two logs in as a role of its own, so its reconnections alone can be refused.
    await admin(`CREATE ROLE "replica_two" SUPERUSER LOGIN PASSWORD '${PASSWORD}'`);
    const config = loadConfig({
      DATABASE_URL: server.url('restarted'),
      ADMIN_LOGIN: ADMIN.login,
      ADMIN_PASSWORD: ADMIN.password,
      LOG_LEVEL: 'silent',
    });
    oneDb = await openDatabase({ databaseUrl: config.databaseUrl });
    await seed(oneDb.prisma, { adminLogin: ADMIN.login, adminPassword: ADMIN.password });
    const twoUrl = new URL(config.databaseUrl);
    twoUrl.username = 'replica_two';
    twoDb = await openDatabase({ databaseUrl: twoUrl.toString(), migrate: false });
    one = createApp({ db: oneDb.prisma, config, log: createLogger('silent') });
    two = createApp({ db: twoDb.prisma, config, log: createLogger('silent') });
    one.lifecycle.markReady();
    two.lifecycle.markReady();

    const created = await call(one, '/api/admin/users', {
      method: 'POST',
      json: { login: 'demoted', password: 'demoted-password-1', email: 'demoted@corp.test' },
    });
    expect(created.status).toBe(200);
    const victim = { login: 'demoted', password: 'demoted-password-1' };
    const id = created.body.id as number;
    expect((await call(one, `/api/org/users/${id}`, { method: 'PATCH', json: { role: 'Admin' } })).status).toBe(200);
    /** Whether `app` answers the victim's permissions with org.users:add (REST), or its status when not 200. */
    const restHolds = async (app: App) => {
      const res = await call(app, '/api/access-control/user/permissions', { auth: victim });
      return res.status === 200 ? Object.hasOwn(res.body, 'org.users:add') : res.status;
    };
    const graphqlHolds = async (app: App) => {
      const res = await call(app, '/graphql', { method: 'POST', json: { query: '{ viewer { permissions { action } } }' }, auth: victim });
      const data = res.body.data as { viewer: { permissions: { action: string }[] } } | undefined;
      return res.status === 200 ? (data?.viewer.permissions.some((x) => x.action === 'org.users:add') ?? false) : res.status;
    };
    const ready = async (app: App) => (await app.yoga.fetch('http://test/api/ready')).status;
    await vi.waitFor(async () => expect([await restHolds(two), await graphqlHolds(two)]).toEqual([true, true]), { timeout: 5000 });
    expect([await restHolds(one), await graphqlHolds(one)]).toEqual([true, true]); // both have it cached

    // Existing connections stay; replica two's new ones are refused from now on.
    await admin('ALTER ROLE "replica_two" NOLOGIN');
    await server.stop();
    for (const app of [one, two]) {
      await vi.waitFor(async () => expect(await ready(app)).toBe(503), { timeout: 15_000, interval: 20 });
      expect(await restHolds(app)).toBe(503);
      expect(await graphqlHolds(app)).toBe(503);
    }
    expect((await call(two, '/api/access-control/user/permissions', { auth: victim })).body.code).toBe('DATABASE_UNAVAILABLE');

    server = await start(port);
    await vi.waitFor(async () => expect(await ready(one)).toBe(200), { timeout: 30_000, interval: 20 });
    expect((await call(one, `/api/org/users/${id}`, { method: 'PATCH', json: { role: 'Viewer' } })).status).toBe(200);
    expect([await restHolds(one), await graphqlHolds(one)]).toEqual([false, false]);
    // Two cannot reconnect: never the old permission, 503 instead.
    for (let i = 0; i < 5; i++) expect([await restHolds(two), await graphqlHolds(two), await ready(two)]).toEqual([503, 503, 503]);

    await admin('ALTER ROLE "replica_two" LOGIN');
    await vi.waitFor(async () => expect(await ready(two)).toBe(200), { timeout: 30_000, interval: 20 });
    expect([await restHolds(two), await graphqlHolds(two)]).toEqual([false, false]);
  }, 120_000);
});
