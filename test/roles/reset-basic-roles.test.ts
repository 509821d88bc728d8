/**
 * POST /api/access-control/roles/hard-reset and `resetBasicRoles`: with {"BasicRoles": true}
 * every basic role gets its default permissions back (custom edits undone, version + 1), in one
 * transaction (an injected database failure leaves everything as it was); false or absent
 * changes nothing; roles:write on permissions:type:escalate is required.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BASIC_ROLES } from '../../src/kernel/builtin-roles.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { failInserts } from '../support/faults.js';
import { expectInternalErrorsLogged, expectOutcome, gql, rest } from '../support/requests.js';
import { type Actor, assignUserRole, createRole, createUser, p } from '../support/subjects.js';

let app: TestApp;
let orgAdmin: Actor;
let resetter: Actor;
let delegateWriter: Actor;

const PATH = '/api/access-control/roles/hard-reset';
const MUTATION = 'mutation ($b: Boolean) { resetBasicRoles(basicRoles: $b) { message } }';

/** Every basic role as stored: uid -> {version, description, hidden, permissions "action scope" sorted}. */
async function snapshot() {
  const roles = await app.database.prisma.role.findMany({
    where: { uid: { in: BASIC_ROLES.map((r) => r.uid) } },
    include: { permissions: true, basicGrants: true },
    orderBy: { uid: 'asc' },
  });
  return Object.fromEntries(
    roles.map((r) => [
      r.uid,
      {
        version: r.version,
        description: r.description,
        hidden: r.hidden,
        grants: r.basicGrants.map((g) => `${g.orgId}:${g.basicRole}`),
        permissions: r.permissions.map((x) => `${x.action} ${x.scope}`).sort(),
      },
    ]),
  );
}

/** What every basic role must look like after a reset from `before`. */
function defaultsAfter(before: Awaited<ReturnType<typeof snapshot>>) {
  return Object.fromEntries(
    BASIC_ROLES.map((def) => [
      def.uid,
      {
        version: (before[def.uid]?.version ?? -1) + 1,
        description: def.description,
        hidden: def.hidden,
        grants: [`0:${def.basicRole}`],
        permissions: def.permissions.map((x) => `${x.action} ${x.scope}`).sort(),
      },
    ]),
  );
}

/** Edits the basic roles the way an operator might: Viewer loses everything, Admin gains a permission, Editor's text changes. */
async function customize(): Promise<void> {
  const db = app.database.prisma;
  const viewer = await db.role.findUniqueOrThrow({ where: { uid: 'basic_viewer' } });
  await db.permission.deleteMany({ where: { roleId: viewer.id } });
  await db.role.update({ where: { id: viewer.id }, data: { version: { increment: 3 } } });
  const admin = await db.role.findUniqueOrThrow({ where: { uid: 'basic_admin' } });
  await db.permission.create({ data: { roleId: admin.id, action: 'custom:thing', scope: 'custom:*' } });
  await db.role.update({ where: { uid: 'basic_editor' }, data: { description: 'edited', hidden: false, version: { increment: 1 } } });
  app.services.access.invalidate();
}

beforeAll(async () => {
  app = await createTestApp();
  orgAdmin = await createUser(app, 'org-admin', { orgRole: 'Admin' });
  resetter = await createUser(app, 'resetter', { orgRole: 'Viewer' });
  await assignUserRole(app, resetter.id, 'fixed:roles:resetter');
  delegateWriter = await createUser(app, 'delegate-writer', { orgRole: 'Viewer' });
  await createRole(app, 'r-writer', [p('roles:write', 'permissions:type:delegate')]);
  await assignUserRole(app, delegateWriter.id, 'r-writer');
});

afterAll(() => app.close());

beforeEach(customize);

describe('POST /api/access-control/roles/hard-reset and resetBasicRoles', () => {
  it('200 with BasicRoles true: defaults restored, versions + 1, grants ensured; the message says so', async () => {
    const before = await snapshot();
    expect(before.basic_viewer?.permissions).toEqual([]);
    const out = await rest(app, 'POST', PATH, { json: { BasicRoles: true } });
    expect(out).toMatchObject({ status: 200, body: { message: 'Reset performed' } });
    expect(await snapshot()).toEqual(defaultsAfter(before));
  });

  it('200 over GraphQL for a holder of fixed:roles:resetter who is no Service Admin', async () => {
    const before = await snapshot();
    const out = await gql(app, MUTATION, { b: true }, { auth: resetter.auth });
    expect(out.data).toEqual({ resetBasicRoles: { message: 'Reset performed' } });
    expect(await snapshot()).toEqual(defaultsAfter(before));
  });

  it('200 with BasicRoles false, absent or no body at all: nothing changes', async () => {
    const before = await snapshot();
    for (const json of [{ BasicRoles: false }, {}, undefined, { BasicRoles: null }]) {
      const out = await rest(app, 'POST', PATH, { json });
      expect(out).toMatchObject({ status: 200, body: { message: 'Nothing to reset: BasicRoles was not true' } });
    }
    expectOutcome(await gql(app, MUTATION, {}), 200);
    expectOutcome(await gql(app, MUTATION, { b: false }), 200);
    expect(await snapshot()).toEqual(before);
  });

  it('400 for a malformed body', async () => {
    const before = await snapshot();
    for (const json of [{ BasicRoles: 'true' }, { BasicRoles: 1 }, ['BasicRoles'], 'BasicRoles']) {
      expectOutcome(await rest(app, 'POST', PATH, { json }), 400, 'VALIDATION_FAILED');
    }
    expectOutcome(await rest(app, 'POST', PATH, { body: '{', headers: { 'content-type': 'application/json' } }), 400, 'INVALID_JSON');
    expect(await snapshot()).toEqual(before);
  });

  it('401 without or with wrong credentials, on both doors', async () => {
    const before = await snapshot();
    expectOutcome(await rest(app, 'POST', PATH, { json: { BasicRoles: true }, auth: null }), 401, 'UNAUTHENTICATED');
    expectOutcome(
      await rest(app, 'POST', PATH, { json: { BasicRoles: true }, auth: { login: 'admin', password: 'x' } }),
      401,
      'INVALID_CREDENTIALS',
    );
    expectOutcome(await gql(app, MUTATION, { b: true }, { auth: null }), 401, 'UNAUTHENTICATED');
    expect(await snapshot()).toEqual(before);
  });

  it('403 without roles:write on permissions:type:escalate (an org Admin, a delegate writer), on both doors', async () => {
    const before = await snapshot();
    for (const auth of [orgAdmin.auth, delegateWriter.auth]) {
      expectOutcome(await rest(app, 'POST', PATH, { json: { BasicRoles: true }, auth }), 403, 'ACCESS_DENIED');
      expectOutcome(await gql(app, MUTATION, { b: true }, { auth }), 403, 'ACCESS_DENIED');
      expectOutcome(await rest(app, 'POST', PATH, { json: { BasicRoles: false }, auth }), 403, 'ACCESS_DENIED');
    }
    expect(await snapshot()).toEqual(before);
  });

  it('500 when the database fails half-way (after Viewer and Editor were rewritten): nothing changed', async () => {
    const before = await snapshot();
    const admin = await app.database.prisma.role.findUniqueOrThrow({ where: { uid: 'basic_admin' } });
    // Fails the insert of Admin's defaults, the third of the four roles written.
    const restore = await failInserts(app, 'fail_reset', 'Permission', 'injected failure', `NEW."roleId" = ${admin.id}`);
    try {
      const { lines } = await app.expectLogged(async () => {
        const out = await rest(app, 'POST', PATH, { json: { BasicRoles: true } });
        expectOutcome(out, 500, 'INTERNAL');
        expect(await snapshot()).toEqual(before);
        expectOutcome(await gql(app, MUTATION, { b: true }), 500, 'INTERNAL');
        expect(await snapshot()).toEqual(before);
      });
      expectInternalErrorsLogged(lines, 'injected failure', [PATH, '/graphql']);
    } finally {
      await restore();
    }
    expectOutcome(await rest(app, 'POST', PATH, { json: { BasicRoles: true } }), 200);
    expect(await snapshot()).toEqual(defaultsAfter(before));
  });

  it('recreates a basic role that went missing', async () => {
    await app.database.prisma.role.delete({ where: { uid: 'basic_editor' } });
    app.services.access.invalidate();
    expectOutcome(await rest(app, 'POST', PATH, { json: { BasicRoles: true } }), 200);
    const editor = (await snapshot()).basic_editor;
    const def = BASIC_ROLES.find((r) => r.uid === 'basic_editor');
    expect(editor).toEqual({
      version: 0,
      description: def?.description,
      hidden: true,
      grants: ['0:Editor'],
      permissions: def?.permissions.map((x) => `${x.action} ${x.scope}`).sort(),
    });
  });
});
