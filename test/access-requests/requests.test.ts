/**
 * Just-in-time access requests at request level, on both doors (SQLite, and PostgreSQL under
 * TEST_DATABASE=postgres), with a test clock: a user asks for a role; someone who may assign it
 * approves (the role is held from then for the duration asked, and refused from the instant it
 * ends), denies, or nobody answers and the request expires; the requester cancels. Self-approval,
 * approval past the approver's own hold, windows and bounds that make no sense, and another
 * organization's requests are refused; every step is in the audit log and the change feed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, TestClock } from '../support/app.js';
import { expectOutcome, gql, rest } from '../support/requests.js';
import { type Actor, createOrg, createRole, createUser, p, unique } from '../support/subjects.js';

const clock = new TestClock();
let app: TestApp;

beforeAll(async () => {
  app = await createTestApp({ clock });
});
afterAll(() => app?.close());

const BASE = '/api/access-control/requests';
type RequestJson = {
  id: number;
  status: string;
  requester: { id: number };
  role: { uid: string };
  decidedBy: { login: string } | null;
  grant: { notBefore: string; expiresAt: string } | null;
  expiresAt: string;
};

/** A role of org 1 holding one action of its own; the action is returned with it. */
async function roleWith(prefix: string) {
  const action = `jit:${unique(prefix)}`;
  const role = await createRole(app, unique(prefix), [p(action)]);
  return { role, action };
}

async function ask(who: Actor, roleUid: string, durationSeconds = 3600, justification = 'incident 42') {
  return rest(app, 'POST', BASE, { json: { roleUid, durationSeconds, justification }, auth: who.auth });
}

async function holds(who: Actor, action: string): Promise<boolean> {
  const res = await rest(app, 'GET', '/api/access-control/user/permissions', { auth: who.auth });
  return Object.hasOwn(res.body as object, action);
}

async function feedAfter(revision: number) {
  const res = await rest(app, 'GET', `/api/access-control/changes?after=${revision}&limit=1000`);
  return (res.body as { changes: { kinds: string[]; users: number[]; roles: string[] }[] }).changes;
}
async function feedHead(): Promise<number> {
  return ((await rest(app, 'GET', '/api/access-control/changes?limit=1000')).body as { next: number }).next;
}

describe('request, approve, expire', () => {
  it('REST: approval grants the role from now for the duration asked; refused from the instant it ends', async () => {
    const { role, action } = await roleWith('jit-rest');
    const user = await createUser(app, unique('jit-asker'));
    const head = await feedHead();
    const created = await ask(user, role.uid, 600);
    expectOutcome(created, 201);
    const request = created.body as RequestJson;
    expect(request).toMatchObject({ status: 'pending', role: { uid: role.uid }, requester: { id: user.id }, grant: null });
    expect(await holds(user, action)).toBe(false);

    const approved = await rest(app, 'POST', `${BASE}/${request.id}/approve`, { json: { comment: 'ok' } });
    expectOutcome(approved, 200);
    const until = new Date(clock.now().getTime() + 600_000).toISOString();
    expect(approved.body).toMatchObject({ status: 'approved', decidedBy: { login: 'admin' }, grant: { expiresAt: until } });
    expect(await holds(user, action)).toBe(true);
    const listed = await rest(app, 'GET', `/api/access-control/users/${user.id}/roles`);
    expect(listed.body).toEqual([expect.objectContaining({ uid: role.uid, expiresAt: until })]);

    clock.advance(599.999);
    expect(await holds(user, action)).toBe(true);
    clock.advance(0.001);
    expect(await holds(user, action)).toBe(false);

    const changes = (await feedAfter(head)).filter((c) => c.users.includes(user.id));
    expect(changes.map((c) => c.kinds)).toEqual([['access_request.create'], ['access_request.approve', 'user_role.add']]);
    expect(changes.every((c) => c.roles.includes(role.uid))).toBe(true);
    const audit = await app.database.prisma.auditEvent.findMany({
      where: { resourceKind: 'access_request', resourceId: String(request.id) },
      orderBy: { id: 'asc' },
    });
    expect(audit.map((e) => e.action)).toEqual(['access_request.create', 'access_request.approve']);
  });

  it('GraphQL: requestAccess, accessRequests, approveAccessRequest, denyAccessRequest, cancelAccessRequest', async () => {
    const { role } = await roleWith('jit-gql');
    const { role: other } = await roleWith('jit-gql-other');
    const { role: third } = await roleWith('jit-gql-third');
    const user = await createUser(app, unique('jit-gql-asker'));
    const requestAccess =
      'mutation($r: String!, $d: Int!, $j: String!) { requestAccess(roleUid: $r, durationSeconds: $d, justification: $j) { id status roleUid requesterId } }';
    const asked = [];
    for (const r of [role, other, third]) {
      const res = await gql(app, requestAccess, { r: r.uid, d: 1800, j: 'on call' }, { auth: user.auth });
      expect(res.data?.requestAccess).toMatchObject({ status: 'pending', roleUid: r.uid, requesterId: user.id });
      asked.push((res.data as { requestAccess: { id: number } }).requestAccess.id);
    }
    const [a, b, c] = asked;
    const approve = await gql(
      app,
      'mutation($id: Int!) { approveAccessRequest(id: $id, comment: "fine") { status comment grantExpiresAt decidedByLogin } }',
      { id: a },
    );
    expect(approve.data?.approveAccessRequest).toMatchObject({ status: 'approved', comment: 'fine', decidedByLogin: 'admin' });
    const deny = await gql(app, 'mutation($id: Int!) { denyAccessRequest(id: $id) { status } }', { id: b });
    expect(deny.data).toEqual({ denyAccessRequest: { status: 'denied' } });
    const cancel = await gql(app, 'mutation($id: Int!) { cancelAccessRequest(id: $id) { status } }', { id: c }, { auth: user.auth });
    expect(cancel.data).toEqual({ cancelAccessRequest: { status: 'cancelled' } });
    const mine = await gql(
      app,
      '{ accessRequests(filter: { mine: true }) { totalCount requests { id status } } }',
      {},
      { auth: user.auth },
    );
    expect(mine.data).toEqual({
      accessRequests: {
        totalCount: 3,
        requests: [
          { id: c, status: 'cancelled' },
          { id: b, status: 'denied' },
          { id: a, status: 'approved' },
        ],
      },
    });
    const one = await gql(app, 'query($id: Int!) { accessRequest(id: $id) { id status } }', { id: b }, { auth: user.auth });
    expect(one.data).toEqual({ accessRequest: { id: b, status: 'denied' } });
    // A decided request is decided once.
    expectOutcome(
      await gql(app, 'mutation($id: Int!) { approveAccessRequest(id: $id) { status } }', { id: b }),
      409,
      'ACCESS_REQUEST_NOT_PENDING',
    );
    expectOutcome(await rest(app, 'POST', `${BASE}/${c}/approve`), 409, 'ACCESS_REQUEST_NOT_PENDING');
  });

  it('an unanswered request expires at its expiry: read as expired at once, never approvable, noted once', async () => {
    const { role, action } = await roleWith('jit-unanswered');
    const user = await createUser(app, unique('jit-waiter'));
    const request = (await ask(user, role.uid)).body as RequestJson;
    const head = await feedHead();
    clock.advance(app.config.accessRequests.expirySeconds);
    expect((await rest(app, 'GET', `${BASE}/${request.id}`, { auth: user.auth })).body).toMatchObject({ status: 'expired' });
    const pending = await rest(app, 'GET', `${BASE}?status=pending&requesterId=${user.id}`);
    expect(pending.body).toMatchObject({ totalCount: 0 });
    expectOutcome(await rest(app, 'POST', `${BASE}/${request.id}/approve`), 409, 'ACCESS_REQUEST_NOT_PENDING');
    expect(await holds(user, action)).toBe(false);

    expect(await app.services.accessRequestExpiry.sweep()).toBeGreaterThanOrEqual(1);
    expect(await app.services.accessRequestExpiry.sweep()).toBe(0);
    const changes = (await feedAfter(head)).filter((c) => c.users.includes(user.id));
    expect(changes.map((c) => c.kinds)).toEqual([['access_request.expire']]);
    const row = await app.database.prisma.accessRequest.findUniqueOrThrow({ where: { id: request.id } });
    expect(row.status).toBe('expired');
    // The role may be asked for again.
    expectOutcome(await ask(user, role.uid), 201);
  });
});

describe('pruning', () => {
  it('deletes answered requests once their expiry and grant ended longer ago than the retention, never a pending one', async () => {
    const { role } = await roleWith('jit-prune');
    const asker = await createUser(app, unique('jit-pruned'));
    const answered = (await ask(asker, role.uid, 60)).body as RequestJson;
    expectOutcome(await rest(app, 'POST', `${BASE}/${answered.id}/approve`), 200);
    const other = await roleWith('jit-prune-kept');
    const pending = (await ask(asker, other.role.uid)).body as RequestJson;
    const expiry = app.services.accessRequestExpiry;
    expect(await expiry.prune()).toBe(0);
    // Past the retention for the answered one; the pending one is moved on so it stays pending.
    clock.advance(app.config.accessRequests.expirySeconds + app.config.changesRetentionHours * 3600 + 60);
    await app.database.prisma.accessRequest.update({
      where: { id: pending.id },
      data: { expiresAt: new Date(clock.now().getTime() + 3_600_000) },
    });
    expect(await expiry.prune()).toBeGreaterThanOrEqual(1);
    expect(await app.database.prisma.accessRequest.findUnique({ where: { id: answered.id } })).toBeNull();
    expect(await app.database.prisma.accessRequest.findUnique({ where: { id: pending.id } })).toMatchObject({ status: 'pending' });
  });
});

describe('who may decide', () => {
  it('the requester never decides its own request, even when it could assign the role', async () => {
    const { role } = await roleWith('jit-self');
    const admin = await createUser(app, unique('jit-self-admin'), { orgRole: 'Admin', permissions: [p(`jit:self-held`)] });
    const own = (await ask(admin, role.uid)).body as RequestJson;
    for (const verb of ['approve', 'deny']) {
      expectOutcome(await rest(app, 'POST', `${BASE}/${own.id}/${verb}`, { auth: admin.auth }), 403, 'ACCESS_REQUEST_SELF_DECISION');
    }
    const viaGql = await gql(app, 'mutation($id: Int!) { approveAccessRequest(id: $id) { status } }', { id: own.id }, { auth: admin.auth });
    expectOutcome(viaGql, 403, 'ACCESS_REQUEST_SELF_DECISION');
    expect((await rest(app, 'GET', `${BASE}/${own.id}`)).body).toMatchObject({ status: 'pending' });
  });

  it('an approver needs access.requests:approve and the delegation right of the role, until the grant ends', async () => {
    const { role, action } = await roleWith('jit-deleg');
    const user = await createUser(app, unique('jit-deleg-asker'));
    const request = (await ask(user, role.uid, 3600)).body as RequestJson;
    const approveRight = [p('access.requests:approve'), p('access.requests:read')];
    const noRoleRight = await createUser(app, unique('jit-norole'), {
      permissions: [...approveRight, p('users.roles:add', 'permissions:type:delegate')],
    });
    const noApprove = await createUser(app, unique('jit-noapprove'), {
      permissions: [p('users.roles:add', 'permissions:type:delegate'), p(action)],
    });
    const shortHold = await createUser(app, unique('jit-short'), {
      permissions: [...approveRight, p('users.roles:add', 'permissions:type:delegate')],
    });
    // shortHold holds the role's permission for 30 minutes only: it cannot grant it for an hour.
    expectOutcome(
      await rest(app, 'POST', `/api/access-control/users/${shortHold.id}/roles`, {
        json: { roleUid: role.uid, expiresAt: new Date(clock.now().getTime() + 1_800_000).toISOString() },
      }),
      200,
    );
    for (const who of [noRoleRight, noApprove, shortHold]) {
      expectOutcome(await rest(app, 'POST', `${BASE}/${request.id}/approve`, { auth: who.auth }), 403, 'ACCESS_DENIED');
    }
    expectOutcome(await rest(app, 'POST', `${BASE}/${request.id}/deny`, { auth: noRoleRight.auth }), 403, 'ACCESS_DENIED');
    expect((await rest(app, 'GET', `${BASE}/${request.id}`)).body).toMatchObject({ status: 'pending', grant: null });
    expect(await app.database.prisma.userRole.count({ where: { userId: user.id } })).toBe(0);
    // An approver holding the role for good may.
    const holder = await createUser(app, unique('jit-holder'), {
      permissions: [...approveRight, p('users.roles:add', 'permissions:type:delegate'), p(action)],
    });
    expectOutcome(await rest(app, 'POST', `${BASE}/${request.id}/approve`, { auth: holder.auth }), 200);
    expect(await holds(user, action)).toBe(true);
  });

  it('only the requester cancels; a reader of its own sees only its own', async () => {
    const { role } = await roleWith('jit-cancel');
    const user = await createUser(app, unique('jit-canceller'));
    const other = await createUser(app, unique('jit-other'));
    const request = (await ask(user, role.uid)).body as RequestJson;
    expectOutcome(await rest(app, 'POST', `${BASE}/${request.id}/cancel`, { auth: other.auth }), 404, 'ACCESS_REQUEST_NOT_FOUND');
    expectOutcome(await rest(app, 'POST', `${BASE}/${request.id}/cancel`), 403, 'ACCESS_DENIED');
    expectOutcome(await rest(app, 'GET', `${BASE}?requesterId=${user.id}`, { auth: other.auth }), 403, 'ACCESS_DENIED');
    expect((await rest(app, 'GET', BASE, { auth: other.auth })).body).toMatchObject({ totalCount: 0, requests: [] });
    expect((await rest(app, 'POST', `${BASE}/${request.id}/cancel`, { auth: user.auth })).body).toMatchObject({ status: 'cancelled' });
    expectOutcome(await rest(app, 'POST', `${BASE}/${request.id}/cancel`, { auth: user.auth }), 409, 'ACCESS_REQUEST_NOT_PENDING');
  });

  it("organization walls: org 1's approver neither sees nor decides org 2's requests", async () => {
    const org = await createOrg(app, unique('jit-org'));
    const role2 = await createRole(app, unique('jit-org2-role'), [p('jit:org2')], { orgId: org.id });
    const asker = await createUser(app, unique('jit-org2-asker'), { orgId: org.id });
    const request = (
      await rest(app, 'POST', BASE, {
        json: { roleUid: role2.uid, durationSeconds: 600, justification: 'x' },
        auth: asker.auth,
        orgId: org.id,
      })
    ).body as RequestJson;
    const approver = await createUser(app, unique('jit-org1-admin'), { orgRole: 'Admin' });
    expectOutcome(await rest(app, 'GET', `${BASE}/${request.id}`, { auth: approver.auth }), 404, 'ACCESS_REQUEST_NOT_FOUND');
    expectOutcome(await rest(app, 'POST', `${BASE}/${request.id}/approve`, { auth: approver.auth }), 404, 'ACCESS_REQUEST_NOT_FOUND');
    const listed = (await rest(app, 'GET', BASE, { auth: approver.auth })).body as { requests: RequestJson[] };
    expect(listed.requests.map((r) => r.id)).not.toContain(request.id);
  });
});

describe('requests that make no sense', () => {
  it('400, 409 and 429 with stable codes on both doors; nothing written', async () => {
    const { role } = await roleWith('jit-bad');
    const capped = await createRole(app, unique('jit-capped'), [p('jit:capped')]);
    await app.database.prisma.role.update({ where: { id: capped.id }, data: { maxAssignmentSeconds: 3600 } });
    const user = await createUser(app, unique('jit-bad-asker'));
    const before = await app.database.prisma.accessRequest.count();
    const cases: { json: Record<string, unknown>; status: number; code: string }[] = [
      { json: { roleUid: capped.uid, durationSeconds: 3601, justification: 'x' }, status: 400, code: 'ACCESS_REQUEST_TOO_LONG' },
      {
        json: { roleUid: role.uid, durationSeconds: app.config.accessRequests.maxSeconds + 1, justification: 'x' },
        status: 400,
        code: 'ACCESS_REQUEST_TOO_LONG',
      },
      { json: { roleUid: 'basic_viewer', durationSeconds: 600, justification: 'x' }, status: 400, code: 'ROLE_NOT_ASSIGNABLE' },
      { json: { roleUid: role.uid, durationSeconds: 10, justification: 'x' }, status: 400, code: 'VALIDATION_FAILED' },
      { json: { roleUid: role.uid, durationSeconds: 600, justification: '' }, status: 400, code: 'VALIDATION_FAILED' },
      { json: { roleUid: role.uid, durationSeconds: 600, justification: 'x'.repeat(1001) }, status: 400, code: 'VALIDATION_FAILED' },
      { json: { roleUid: 'no-such-role', durationSeconds: 600, justification: 'x' }, status: 404, code: 'ROLE_NOT_FOUND' },
    ];
    for (const { json, status, code } of cases) {
      expectOutcome(await rest(app, 'POST', BASE, { json, auth: user.auth }), status, code);
      const viaGql = await gql(
        app,
        'mutation($r: String!, $d: Int!, $j: String!) { requestAccess(roleUid: $r, durationSeconds: $d, justification: $j) { id } }',
        { r: json.roleUid, d: json.durationSeconds, j: json.justification },
        { auth: user.auth },
      );
      expectOutcome(viaGql, status, code);
    }
    expect(await app.database.prisma.accessRequest.count()).toBe(before);

    expectOutcome(await ask(user, capped.uid, 3600), 201);
    expectOutcome(await ask(user, capped.uid, 600), 409, 'ACCESS_REQUEST_DUPLICATE');
    // A role held for good already is not asked for.
    expectOutcome(await rest(app, 'POST', `/api/access-control/users/${user.id}/roles`, { json: { roleUid: role.uid } }), 200);
    expectOutcome(await ask(user, role.uid), 409, 'ACCESS_REQUEST_ROLE_HELD');
  });

  it('at most 10 pending requests per requester', async () => {
    const user = await createUser(app, unique('jit-many'));
    for (let i = 0; i < 10; i++) expectOutcome(await ask(user, (await roleWith('jit-many')).role.uid), 201);
    expectOutcome(await ask(user, (await roleWith('jit-many')).role.uid), 429, 'TOO_MANY_ACCESS_REQUESTS');
  });
});
