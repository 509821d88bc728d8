/**
 * Catch-up by revision across replicas (PostgreSQL: platform/change-reach.ts): replica B's
 * listener is stalled (its backend stopped with SIGSTOP), a role is removed from user X through
 * replica A, and B's listener is then killed, so the notification naming X never reaches B. When
 * B reconnects it reads the change records after the last revision it applied and drops what they
 * name only: X's next request through B no longer holds the role, and user Y, whom the write did
 * not name, keeps a warm cache at B (no SQL statement).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { App } from '../../src/app.js';
import { LISTENER_NAME } from '../../src/platform/change-feed.js';
import { appliedRevisionOf, changesKnown, type Database } from '../../src/platform/database.js';
import { authHeader, type Credentials, createTestApp, type TestApp } from '../support/app.js';
import { onPostgres } from '../support/postgres.js';
import { openReplica } from '../support/replica.js';
import { type Actor, createRole, createUser, p, unique } from '../support/subjects.js';

let a: TestApp;
let bDb: Database;
let b: App;
/** Statements B sent since the last reset. */
const bQueries: string[] = [];

/** Backend pids of the change-feed listeners on the app's database. */
async function listeners(): Promise<number[]> {
  const rows = await a.database.prisma.$queryRawUnsafe<{ pid: number }[]>(
    `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = '${LISTENER_NAME}'`,
  );
  return rows.map((row) => Number(row.pid));
}

/** The actions B lists for `auth`. */
async function actionsAtB(auth: Credentials): Promise<string[]> {
  const res = await b.yoga.fetch('http://test/api/access-control/user/permissions', { headers: { authorization: authHeader(auth) } });
  expect(res.status).toBe(200);
  return Object.keys((await res.json()) as object);
}

/** The newest change record's revision. */
async function head(): Promise<number> {
  const row = await a.database.prisma.accessChange.findFirst({ orderBy: { revision: 'desc' }, select: { revision: true } });
  return row?.revision ?? 0;
}

describe.runIf(onPostgres)('a replica whose listener was lost', () => {
  let x: Actor;
  let y: Actor;
  let role: { uid: string };
  let bListener: number;

  beforeAll(async () => {
    a = await createTestApp();
    const aListeners = await listeners();
    ({ db: bDb, app: b } = await openReplica(a, { onQuery: (sql) => bQueries.push(sql) }));
    bListener = (await listeners()).find((pid) => !aListeners.includes(pid)) as number;
    role = await createRole(a, unique('catch-up'), [p('catchup:act')]);
    x = await createUser(a, unique('cu-x'));
    y = await createUser(a, unique('cu-y'));
    const assigned = await a.request(`/api/access-control/users/${x.id}/roles`, { method: 'POST', json: { roleUid: role.uid } });
    expect(assigned.status).toBe(200);
    // Warm B for both users, and wait until B knows it applied every change so far.
    expect(await actionsAtB(x.auth)).toContain('catchup:act');
    expect(await actionsAtB(y.auth)).not.toContain('catchup:act');
    await b.services.sessions.seenWritesSettled();
    const applied = await head();
    await vi.waitFor(() => expect(appliedRevisionOf(bDb.prisma)).toBe(applied), { timeout: 10_000 });
  });
  afterAll(async () => {
    try {
      process.kill(bListener, 'SIGCONT');
    } catch {
      // gone already
    }
    await bDb?.close();
    await a?.close();
  });

  it('drops only what the records it missed name: the revoked user is refused, another keeps a warm cache', async () => {
    process.kill(bListener, 'SIGSTOP');
    let revoked: number;
    try {
      const res = await a.request(`/api/access-control/users/${x.id}/roles/${role.uid}`, { method: 'DELETE' });
      expect(res.status).toBe(200);
      revoked = Number(res.headers.get('x-access-revision'));
      const killed = await a.database.prisma.$queryRawUnsafe<{ ok: boolean }[]>(`SELECT pg_terminate_backend(${bListener}) AS ok`);
      expect(killed[0]?.ok).toBe(true);
    } finally {
      process.kill(bListener, 'SIGCONT');
    }
    // B reconnected (another listener backend) and caught up to the revocation's revision.
    await vi.waitFor(
      async () => {
        expect(await listeners()).not.toContain(bListener);
        expect(changesKnown(bDb.prisma)).toBe(true);
        expect(appliedRevisionOf(bDb.prisma)).toBe(revoked);
      },
      { timeout: 10_000 },
    );
    bQueries.length = 0;
    expect(await actionsAtB(y.auth)).not.toContain('catchup:act');
    await b.services.sessions.seenWritesSettled();
    expect(bQueries).toEqual([]);
    expect(await actionsAtB(x.auth)).not.toContain('catchup:act');
  });
});
