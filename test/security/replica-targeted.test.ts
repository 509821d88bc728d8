/**
 * Targeted changes across replicas: a role assigned to one user through replica A reaches that
 * user at replica B's next request, and on PostgreSQL B drops that user's cached permissions
 * only (the change notification names the users a change can reach: platform/change-feed.ts
 * "reach"), so another user's next request through B reads no SQL. A change that names nobody (a
 * role's permissions replaced) still drops everyone's. On SQLite B learns of A's commits through
 * `PRAGMA data_version`, which names nobody: every change drops everything there.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { type Database, watchVersions } from '../../src/platform/database.js';
import { authHeader, type Credentials, createTestApp, type TestApp } from '../support/app.js';
import { onPostgres } from '../support/postgres.js';
import { openReplica } from '../support/replica.js';
import { type Actor, createRole, createUser, p, unique } from '../support/subjects.js';

let a: TestApp;
let bDb: Database;
let b: App;
/** Statements B sent since the last reset. */
const bQueries: string[] = [];

beforeAll(async () => {
  a = await createTestApp();
  ({ db: bDb, app: b } = await openReplica(a, { onQuery: (sql) => bQueries.push(sql) }));
});
afterAll(async () => {
  await bDb?.close();
  await a?.close();
});

/** The actions B lists for `auth`. */
async function actionsAtB(auth: Credentials): Promise<string[]> {
  const res = await b.yoga.fetch('http://test/api/access-control/user/permissions', { headers: { authorization: authHeader(auth) } });
  expect(res.status).toBe(200);
  return Object.keys((await res.json()) as object);
}

/** Runs `write` through A and resolves once B was told of its commit (PostgreSQL), or at once (SQLite). */
async function writeThroughA(write: () => Promise<Response>): Promise<void> {
  let told = () => {};
  const announced = new Promise<void>((resolve) => (told = resolve));
  const stop = watchVersions(bDb.prisma, () => told());
  try {
    const res = await write();
    expect(res.status, await res.clone().text()).toBe(200);
    if (onPostgres) await announced;
  } finally {
    stop();
  }
}

describe('a role assigned through A', () => {
  let x: Actor;
  let y: Actor;
  let role: { uid: string };

  beforeAll(async () => {
    role = await createRole(a, unique('targeted'), [p('targeted:act')]);
    x = await createUser(a, unique('tgt-x'));
    y = await createUser(a, unique('tgt-y'));
    // Warm B: both users' credentials and permissions are cached there.
    for (const user of [x, y]) expect(await actionsAtB(user.auth)).not.toContain('targeted:act');
    await b.services.sessions.seenWritesSettled();
  });

  it("reaches its user at B's next request", async () => {
    await writeThroughA(() => a.request(`/api/access-control/users/${x.id}/roles`, { method: 'POST', json: { roleUid: role.uid } }));
    expect(await actionsAtB(x.auth)).toContain('targeted:act');
    await writeThroughA(() => a.request(`/api/access-control/users/${x.id}/roles/${role.uid}`, { method: 'DELETE' }));
    expect(await actionsAtB(x.auth)).not.toContain('targeted:act');
  });

  it.runIf(onPostgres)("leaves another user's cached permissions and credential at B: no SQL", async () => {
    expect(await actionsAtB(y.auth)).not.toContain('targeted:act'); // warm after the test above
    await b.services.sessions.seenWritesSettled();
    await writeThroughA(() => a.request(`/api/access-control/users/${x.id}/roles`, { method: 'POST', json: { roleUid: role.uid } }));
    bQueries.length = 0;
    expect(await actionsAtB(y.auth)).not.toContain('targeted:act');
    await b.services.sessions.seenWritesSettled();
    expect(bQueries).toEqual([]);
    expect(await actionsAtB(x.auth)).toContain('targeted:act');
  });

  it.runIf(onPostgres)("a change that names nobody (a role's permissions replaced) drops every user's at B", async () => {
    expect(await actionsAtB(y.auth)).not.toContain('targeted:act');
    await b.services.sessions.seenWritesSettled();
    const edited = await createRole(a, unique('tgt-edited'), [p('targeted:one')]);
    await writeThroughA(() =>
      a.request(`/api/access-control/roles/${edited.uid}`, {
        method: 'PUT',
        json: { version: 2, name: `custom:${edited.uid}`, permissions: [p('targeted:two')] },
      }),
    );
    bQueries.length = 0;
    expect(await actionsAtB(y.auth)).not.toContain('targeted:act');
    expect(bQueries.length).toBeGreaterThan(0);
  });
});
