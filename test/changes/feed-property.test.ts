/**
 * A property of the change stream, on SQLite (two app instances on one file) and PostgreSQL (two
 * instances, each with its own pool and listener, as two replicas): random role assignments and
 * removals, each through a replica drawn at random, while subscribers on both follow
 * `accessChanges` over SSE and drop their connection at random, resuming with Last-Event-ID or
 * with `after` (a new client). Every subscriber sees every change exactly once, in revision order
 * (the list of change records in the database), and the user -> roles state it rebuilds from the
 * records alone (`user_role.add` / `user_role.remove`, the user and role they name) equals the
 * database's. A stream ended by 503 DATABASE_UNAVAILABLE (a PostgreSQL listener reconnecting under
 * load) is resumed like any other disconnect.
 *
 * FEED_PROPERTY_WRITES sets the number of writes (default 500 on SQLite, 200 on PostgreSQL, each
 * about 25 s on a loaded two-core machine; `FEED_PROPERTY_WRITES=3000` for a longer run);
 * FEED_PROPERTY_SEED the random seed (named in every failure).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import type { Database } from '../../src/platform/database.js';
import { ADMIN, authHeader, createTestApp, type TestApp } from '../support/app.js';
import { onPostgres } from '../support/postgres.js';
import { openReplica } from '../support/replica.js';
import { SseClient } from '../support/sse.js';
import { createKey, createRole, createUser } from '../support/subjects.js';

const WRITES = Number(process.env.FEED_PROPERTY_WRITES ?? (onPostgres ? 200 : 500));
const SEED = Number(process.env.FEED_PROPERTY_SEED ?? Date.now() % 1_000_000);
const USERS = 8;
const ROLES = 4;
/** Subscribers per replica (the admin holds at most 5 streams at once). */
const SUBSCRIBERS_PER_REPLICA = 2;

/** The last revision compared, once the writers are done. */
let head: number | undefined;
let one: TestApp;
let twoDb: Database;
let two: App;

beforeAll(async () => {
  one = await createTestApp();
  ({ db: twoDb, app: two } = await openReplica(one));
});
afterAll(async () => {
  two?.services.changeStreams.closeAll();
  one?.services.changeStreams.closeAll();
  await twoDb?.close();
  await one?.close();
});

/** mulberry32: a small seeded generator, so a failing run can be repeated. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const send = (
  app: App,
  path: string,
  init: { method?: string; json?: unknown; headers?: Record<string, string>; signal?: AbortSignal } = {},
) =>
  Promise.resolve(
    app.yoga.fetch(`http://test${path}`, {
      method: init.method ?? 'GET',
      headers: {
        authorization: authHeader(ADMIN),
        ...(init.json !== undefined && { 'content-type': 'application/json' }),
        ...init.headers,
      },
      ...(init.json !== undefined && { body: JSON.stringify(init.json) }),
      ...(init.signal && { signal: init.signal }),
    }),
  );

interface Change {
  revision: number;
  kinds: string[];
  users: number[];
  roles: string[];
}
const QUERY = 'subscription ($after: Int) { accessChanges(after: $after) { revision change { revision kinds users roles } } }';

/** One subscriber on `app`: follows the stream from `start` until it saw `until()`, dropping and resuming at random. */
async function follow(app: App, start: number, next: () => number): Promise<Change[]> {
  const seen: Change[] = [];
  let last = start;
  const client = (after: number) =>
    new SseClient((headers, signal) =>
      send(app, '/graphql', { method: 'POST', headers, json: { query: QUERY, variables: { after } }, signal }),
    );
  let sse = client(start);
  await sse.connect();
  for (;;) {
    if (head !== undefined && last >= head) break;
    const event = await sse.next();
    if (event === undefined) throw new Error(`the stream ended after revision ${last}`);
    if (event.type !== 'next') continue;
    const body = JSON.parse(event.data) as {
      data?: { accessChanges: { revision: number; change: Change | null } };
      errors?: { extensions?: { code?: string } }[];
    };
    if (!body.data) {
      // PostgreSQL: while a replica's listener reconnects it cannot know what it missed and ends
      // the stream with 503 DATABASE_UNAVAILABLE; a client resumes, as after any disconnect.
      if (body.errors?.[0]?.extensions?.code !== 'DATABASE_UNAVAILABLE') throw new Error(`an error event: ${event.data}`);
      await new Promise((resolve) => setImmediate(resolve));
      await sse.connect();
      continue;
    }
    const { change, revision } = body.data.accessChanges;
    if (change && (head === undefined || change.revision <= head)) seen.push(change);
    last = revision;
    // Drops the connection now and then: resumes with Last-Event-ID, or as a new client with `after`.
    if (next() < 0.03) {
      sse.close();
      if (next() < 0.5) sse = client(last);
      await sse.connect();
    }
  }
  sse.close();
  return seen;
}

describe('the change stream under random writes through two replicas', () => {
  it(`every subscriber sees every change once, in order, and rebuilds the database's assignments (${WRITES} writes)`, async () => {
    const rand = random(SEED);
    const users = await Promise.all(Array.from({ length: USERS }, (_, i) => createUser(one, `feed-prop-${SEED}-${i}`)));
    const roles = await Promise.all(Array.from({ length: ROLES }, (_, i) => createRole(one, `feed-prop-${SEED}-${i}`, [])));
    const key = await createKey(one, { name: `feed-prop-${SEED}`, role: 'Admin' });
    const start = Number(((await (await send(one, '/api/access-control/changes?limit=1')).json()) as { head: number }).head);

    const subscribers = [one, two].flatMap((app) =>
      Array.from({ length: SUBSCRIBERS_PER_REPLICA }, (_, i) => follow(app, start, random(SEED + 1 + i + (app === one ? 0 : 100)))),
    );
    // Awaited below; a failure of the writers first must not leave them unhandled.
    for (const subscriber of subscribers) subscriber.catch(() => undefined);

    // One writer, each write through a replica drawn at random. With an Admin API key: a password
    // check per write would be most of the time (each write drops remembered Basic credentials);
    // the roles grant nothing, so the delegation rule lets it assign them.
    const asKey = { authorization: `Bearer ${key.key}` };
    const held = new Map(users.map((u) => [u.id, new Set<string>()]));
    for (let i = 0; i < WRITES; i++) {
      const app = rand() < 0.5 ? one : two;
      const user = users[Math.floor(rand() * users.length)] as (typeof users)[number];
      const role = roles[Math.floor(rand() * roles.length)] as (typeof roles)[number];
      const set = held.get(user.id) as Set<string>;
      const add = !set.has(role.uid);
      const write = () =>
        add
          ? send(app, `/api/access-control/users/${user.id}/roles`, { method: 'POST', json: { roleUid: role.uid }, headers: asKey })
          : send(app, `/api/access-control/users/${user.id}/roles/${role.uid}`, { method: 'DELETE', headers: asKey });
      let res = await write();
      // 503 (a listener reconnecting, the database busy): nothing was written; sent again, as a client does.
      while (res.status === 503) res = await write();
      if (res.status !== 200) throw new Error(`write ${i}: ${res.status} ${await res.text()}`);
      if (add) set.add(role.uid);
      else set.delete(role.uid);
    }
    const records = await one.database.prisma.accessChange.findMany({ where: { revision: { gt: start } }, orderBy: { revision: 'asc' } });
    expect(records).toHaveLength(WRITES);
    // One more change after the last one compared (a change record, not a bare commit), so a
    // subscriber that took the last one before `head` was known, and waits for its next event,
    // receives it and stops.
    head = records.at(-1)?.revision;
    const end = await createRole(one, `feed-prop-${SEED}-end`, []);
    const woken = await send(one, `/api/access-control/users/${users[0]?.id}/roles`, {
      method: 'POST',
      json: { roleUid: end.uid },
      headers: asKey,
    });
    expect(woken.status).toBe(200);

    const expected = records.map((r) => r.revision);
    const rows = await one.database.prisma.userRole.findMany({
      where: { userId: { in: users.map((u) => u.id) }, role: { uid: { in: roles.map((r) => r.uid) } } },
      select: { userId: true, role: { select: { uid: true } } },
    });
    const inDatabase = new Map(users.map((u) => [u.id, [] as string[]]));
    for (const row of rows) inDatabase.get(row.userId)?.push(row.role.uid);

    const seen = await Promise.all(subscribers);
    for (const [n, changes] of seen.entries()) {
      const context = `subscriber ${n}, seed ${SEED}`;
      expect(
        changes.map((c) => c.revision),
        context,
      ).toEqual(expected);
      const rebuilt = new Map(users.map((u) => [u.id, new Set<string>()]));
      for (const change of changes) {
        const [kind] = change.kinds;
        const set = rebuilt.get(change.users[0] as number);
        expect(change.kinds, context).toHaveLength(1);
        if (kind === 'user_role.add') for (const uid of change.roles) set?.add(uid);
        else if (kind === 'user_role.remove') for (const uid of change.roles) set?.delete(uid);
        else throw new Error(`${context}: an unexpected change ${JSON.stringify(change)}`);
      }
      expect(new Map([...rebuilt].map(([id, set]) => [id, [...set].sort()])), context).toEqual(
        new Map([...inDatabase].map(([id, list]) => [id, list.sort()])),
      );
    }
  }, 300_000);
});
