/**
 * Access requests on two replicas of one database sharing one test clock (SQLite, and PostgreSQL
 * under TEST_DATABASE=postgres): a request approved through one replica is held through the
 * other and refused there from the instant its grant ends; two approvals racing on the two
 * replicas write one assignment; an unanswered request's expiry is written once, whichever
 * replica sweeps; an approval the assignment refuses leaves the request pending.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import type { Database } from '../../src/platform/database.js';
import { ADMIN, authHeader, type Credentials, createTestApp, type TestApp, TestClock } from '../support/app.js';
import { onPostgres } from '../support/postgres.js';
import { openReplica } from '../support/replica.js';
import { expectOutcome, rest } from '../support/requests.js';
import { createRole, createUser, p, unique } from '../support/subjects.js';

const clock = new TestClock();
let one: TestApp;
let twoDb: Database;
let two: App;

beforeAll(async () => {
  one = await createTestApp({ clock });
  ({ db: twoDb, app: two } = await openReplica(one, { deps: { clock } }));
});
afterAll(async () => {
  await twoDb?.close();
  await one?.close();
});

const BASE = '/api/access-control/requests';

/** A request to replica two. */
async function viaTwo(path: string, auth: Credentials, method = 'GET') {
  const res = await two.yoga.fetch(`http://test${path}`, { method, headers: { authorization: authHeader(auth) } });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/**
 * Waits until replica two grants `action` to `auth`: at once on SQLite (the commit moves its
 * change counter); on PostgreSQL once the targeted change's notification arrived (milliseconds;
 * test/support/changes.ts), read by read, failing after NOTIFY_TIMEOUT_MS.
 */
async function grantedOnTwo(auth: Credentials, action: string): Promise<void> {
  const deadline = Date.now() + NOTIFY_TIMEOUT_MS;
  for (;;) {
    if (Object.hasOwn((await viaTwo('/api/access-control/user/permissions', auth)).body, action)) return;
    if (!onPostgres) throw new Error('SQLite: replica two did not see the approval at once');
    if (Date.now() > deadline) throw new Error(`replica two did not grant ${action} within ${NOTIFY_TIMEOUT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}
const NOTIFY_TIMEOUT_MS = 10_000;

/** Runs both replicas' `work` at once on PostgreSQL, one after the other on SQLite (two in-process writers would wait on each other's lock). */
async function onBoth<T>(work: readonly [() => Promise<T>, () => Promise<T>]): Promise<T[]> {
  if (onPostgres) return Promise.all(work.map((w) => w()));
  return [await work[0](), await work[1]()];
}

describe('access requests across replicas', () => {
  it('approved through one replica: held through the other, refused there from the instant the grant ends', async () => {
    const action = `jitr:${unique('held')}`;
    const role = await createRole(one, unique('jitr-role'), [p(action)]);
    const user = await createUser(one, unique('jitr-user'));
    const asked = await rest(one, 'POST', BASE, {
      json: { roleUid: role.uid, durationSeconds: 120, justification: 'deploy' },
      auth: user.auth,
    });
    const id = (asked.body as { id: number }).id;
    // Replica two caches the user's permissions before the approval.
    expect(Object.hasOwn((await viaTwo('/api/access-control/user/permissions', user.auth)).body, action)).toBe(false);
    expectOutcome(await rest(one, 'POST', `${BASE}/${id}/approve`), 200);
    await grantedOnTwo(user.auth, action);
    clock.advance(119.999);
    expect(Object.hasOwn((await viaTwo('/api/access-control/user/permissions', user.auth)).body, action)).toBe(true);
    clock.advance(0.001);
    expect(Object.hasOwn((await viaTwo('/api/access-control/user/permissions', user.auth)).body, action)).toBe(false);
  });

  it('two approvals racing on two replicas: one wins, the other is 409, one assignment', async () => {
    const role = await createRole(one, unique('jitr-race'), [p('jitr:race')]);
    const user = await createUser(one, unique('jitr-race-user'));
    const asked = await rest(one, 'POST', BASE, {
      json: { roleUid: role.uid, durationSeconds: 600, justification: 'race' },
      auth: user.auth,
    });
    const id = (asked.body as { id: number }).id;
    const statuses = await onBoth([
      async () => (await rest(one, 'POST', `${BASE}/${id}/approve`)).status,
      async () => (await viaTwo(`${BASE}/${id}/approve`, ADMIN, 'POST')).status,
    ]);
    expect(statuses.sort()).toEqual([200, 409]);
    expect(await one.database.prisma.userRole.count({ where: { userId: user.id, roleId: role.id } })).toBe(1);
  });

  it('an unanswered request expires once, whichever replica sweeps', async () => {
    const role = await createRole(one, unique('jitr-expire'), [p('jitr:expire')]);
    const user = await createUser(one, unique('jitr-expire-user'));
    const asked = await rest(one, 'POST', BASE, {
      json: { roleUid: role.uid, durationSeconds: 600, justification: 'late' },
      auth: user.auth,
    });
    const id = String((asked.body as { id: number }).id);
    clock.advance(one.config.accessRequests.expirySeconds);
    await onBoth([() => one.services.accessRequestExpiry.sweep(), () => two.services.accessRequestExpiry.sweep()]);
    await onBoth([() => one.services.accessRequestExpiry.sweep(), () => two.services.accessRequestExpiry.sweep()]);
    const events = await one.database.prisma.auditEvent.findMany({ where: { resourceKind: 'access_request', resourceId: id } });
    expect(events.map((e) => e.action).sort()).toEqual(['access_request.create', 'access_request.expire']);
  });

  it('an approval the assignment refuses leaves the request pending and nothing assigned', async () => {
    const role = await createRole(one, unique('jitr-shrunk'), [p('jitr:shrunk')]);
    const user = await createUser(one, unique('jitr-shrunk-user'));
    const asked = await rest(one, 'POST', BASE, {
      json: { roleUid: role.uid, durationSeconds: 7200, justification: 'x' },
      auth: user.auth,
    });
    const id = (asked.body as { id: number }).id;
    // The role's cap shrinks below the duration asked before anyone answers.
    await one.database.prisma.role.update({ where: { id: role.id }, data: { maxAssignmentSeconds: 3600 } });
    expectOutcome(await rest(one, 'POST', `${BASE}/${id}/approve`), 400, 'ASSIGNMENT_TOO_LONG');
    expect((await rest(one, 'GET', `${BASE}/${id}`)).body).toMatchObject({ status: 'pending', grant: null });
    expect(await one.database.prisma.userRole.count({ where: { userId: user.id } })).toBe(0);
    const events = await one.database.prisma.auditEvent.findMany({ where: { resourceKind: 'access_request', resourceId: String(id) } });
    expect(events.map((e) => e.action)).toEqual(['access_request.create']);
  });
});
