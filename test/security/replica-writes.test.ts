/**
 * Concurrent writes through three replicas: role version checks and unique
 * names hold under concurrent writes from different replicas (100 parallel same-version updates
 * across 3 replicas: exactly one succeeds). Three real server processes (src/main.ts, as
 * `npm start` runs it) on one PostgreSQL database, driven over real HTTP at once:
 * - 100 updates of one role, all sending the same next version, spread over the three: exactly
 *   one 200, the other 99 answer 400 ROLE_VERSION_CONFLICT, from every replica; the database and
 *   every replica then hold the winner's permissions at that version;
 * - 30 creates of one role name with 30 different uids, spread over the three: exactly one 200,
 *   the other 29 answer 409 ROLE_ALREADY_EXISTS, and one role of that name exists.
 * What makes it hold: every write transaction first takes one advisory lock (platform/
 * database-postgres.ts), so the version and name checks inside it see every write committed
 * before, by any replica; the unique index on (orgId, name) is the backstop.
 *
 * `npm run test:postgres` only: on SQLite there are no replicas (one instance per file, README
 * "PostgreSQL"); two processes on one SQLite file are covered by two-process.test.ts and two app
 * instances by replicas.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ADMIN } from '../support/app.js';
import { onPostgres, ownDatabaseUrl, type TestDatabase } from '../support/postgres.js';
import { killServers, type ServerProcess, startServer, stopServer } from '../support/server.js';

const REPLICAS = 3;
let database: TestDatabase | undefined;
let replicas: (ServerProcess & { port: number })[] = [];
/** The server admin's session cookie (`name=value`). */
let cookie: string;

beforeAll(async () => {
  if (!onPostgres) return;
  database = await ownDatabaseUrl('', 'template');
  const env = { DATABASE_URL: database.url, ADMIN_LOGIN: ADMIN.login, ADMIN_PASSWORD: ADMIN.password };
  // Started together, as a deployment's replicas are; each resolves once it listens.
  replicas = await Promise.all(Array.from({ length: REPLICAS }, () => startServer(env, { timeoutMs: 150_000 })));
  // Signed in once, through one replica: the session (a row in the database) is honoured by all.
  // A session rather than Basic: each write moves the access generation, which drops remembered
  // Basic credentials (src/modules/sign-in/verified-passwords.ts), so concurrent Basic requests
  // each reserve a password check (src/modules/sign-in/throttle.ts) and, past 5 checks of one
  // account in flight, are answered 401/429 even with the right password: a sign-in matter (see
  // SECURITY.md "Sign-in"), not what this file tests.
  const login = await fetch(`http://127.0.0.1:${(replicas[0] as { port: number }).port}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ user: ADMIN.login, password: ADMIN.password }),
  });
  expect(login.status).toBe(200);
  cookie = login.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  for (let n = 0; n < REPLICAS; n++) expect((await send(n, 'GET', '/api/user')).status).toBe(200);
}, 180_000);

afterAll(async () => {
  await Promise.all(replicas.map((r) => stopServer(r)));
  killServers();
  await database?.drop();
}, 60_000);

/** One request to replica `n` over real HTTP: status and JSON body. */
async function send(
  n: number,
  method: string,
  path: string,
  json?: unknown,
): Promise<{ status: number; body: Record<string, unknown> & { code?: string } }> {
  const replica = replicas[n] as { port: number };
  const res = await fetch(`http://127.0.0.1:${replica.port}${path}`, {
    method,
    headers: { cookie, ...(json !== undefined && { 'content-type': 'application/json' }) },
    ...(json !== undefined && { body: JSON.stringify(json) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> & { code?: string } };
}

/** Tally of `status code` strings, e.g. `{ '200': 1, '400 ROLE_VERSION_CONFLICT': 99 }`. */
function tally(answers: { status: number; body: { code?: string } }[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const a of answers) {
    const key = a.body.code ? `${a.status} ${a.body.code}` : String(a.status);
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

describe.skipIf(!onPostgres)('three replica processes writing at once on one PostgreSQL database', () => {
  it('100 same-version updates of one role across the 3: exactly one succeeds, 99 ROLE_VERSION_CONFLICT', async () => {
    const created = await send(1, 'POST', '/api/access-control/roles', {
      uid: 'three-race',
      name: 'custom:three-race',
      permissions: [{ action: 'race:kept' }],
    });
    expect(created.status).toBe(200);
    const next = (created.body.version as number) + 1;
    const answers = await Promise.all(
      Array.from({ length: 100 }, async (_, i) => ({
        replica: i % REPLICAS,
        action: `race:${i}`,
        ...(await send(i % REPLICAS, 'PUT', '/api/access-control/roles/three-race', {
          name: 'custom:three-race',
          version: next,
          permissions: [{ action: `race:${i}` }],
        })),
      })),
    );
    expect(tally(answers)).toEqual({ 200: 1, '400 ROLE_VERSION_CONFLICT': 99 });
    // Refused by every replica, not only by the one that wrote: the check sees the others' commits.
    const refusedBy = new Set(answers.filter((a) => a.status === 400).map((a) => a.replica));
    expect([...refusedBy].sort()).toEqual([0, 1, 2]);

    const winner = answers.find((a) => a.status === 200) as { action: string };
    // Every replica answers the winner's role (a state reached once each knows of the commit).
    for (let n = 0; n < REPLICAS; n++) {
      await vi.waitFor(
        async () => {
          const role = await send(n, 'GET', '/api/access-control/roles/three-race');
          expect(role.status).toBe(200);
          expect({ version: role.body.version, actions: (role.body.permissions as { action: string }[]).map((p) => p.action) }).toEqual({
            version: next,
            actions: [winner.action],
          });
        },
        { timeout: 10_000, interval: 20 },
      );
    }
  }, 120_000);

  it('30 creates of one role name across the 3: exactly one succeeds, 29 ROLE_ALREADY_EXISTS', async () => {
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        send(i % REPLICAS, 'POST', '/api/access-control/roles', {
          uid: `three-name-${i}`,
          name: 'custom:three-name',
          permissions: [{ action: 'name:kept' }],
        }),
      ),
    );
    expect(tally(answers)).toEqual({ 200: 1, '409 ROLE_ALREADY_EXISTS': 29 });
    const winner = answers.find((a) => a.status === 200)?.body.uid as string;
    // One role of that name, the winner, through every replica; the losers' uids do not exist.
    for (let n = 0; n < REPLICAS; n++) {
      const listed = await send(n, 'GET', '/api/access-control/roles?includeHidden=true');
      const named = (listed.body as unknown as { uid: string; name: string }[]).filter((r) => r.name === 'custom:three-name');
      expect(named.map((r) => r.uid)).toEqual([winner]);
    }
    const loser = answers.findIndex((a) => a.status !== 200);
    expect((await send(loser % REPLICAS, 'GET', `/api/access-control/roles/three-name-${loser}`)).status).toBe(404);
  }, 120_000);
});
