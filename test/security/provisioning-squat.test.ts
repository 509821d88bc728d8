/**
 * Provisioning squats, as an attacker tries it: an org Admin creates a custom role holding the uid
 * (or the name) a provisioning file declares, assigns it to itself and waits for the operator's
 * reload; an Admin of another organization squats an organization-1 uid; a file copies (`from`) a
 * hand-made role into a global one. Each reload (REST, GraphQL and the files as applied at start)
 * answers 400 PROVISIONING_INVALID naming file:line:col and path, and changes nothing: the
 * squatter's role keeps its permissions and organization. Uids of the reserved forms (`prov_`,
 * `plugins_`, ...) cannot be taken by hand on either door. The legitimate use keeps working:
 * a new role is provisioned, a reload changes nothing, a higher version updates it.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { productRoleUid } from '../../src/kernel/builtin-roles.js';
import { isDomainError } from '../../src/kernel/errors.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { expectOutcome, gql, type Outcome, rest } from '../support/requests.js';
import { type Actor, createOrg, createUser, unique } from '../support/subjects.js';

let dir: string;
let app: TestApp;
let admin1: Actor;
let admin2: Actor;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'portcullis-squat-'));
  mkdirSync(join(dir, 'access-control'), { recursive: true });
  app = await createTestApp({ env: { PROVISIONING_PATH: dir } });
  const org2 = await createOrg(app, 'Squatters');
  admin1 = await createUser(app, 'squat-admin1', { orgRole: 'Admin' });
  admin2 = await createUser(app, 'squat-admin2', { orgId: org2.id, orgRole: 'Admin' });
});
afterAll(async () => {
  await app.close();
  rmSync(dir, { recursive: true, force: true });
});
afterEach(() => rmSync(join(dir, 'access-control', 'roles.yaml'), { force: true }));

const writeFile = (text: string) => writeFileSync(join(dir, 'access-control', 'roles.yaml'), text);

/** Everything provisioning can touch. */
async function state() {
  const db = app.database.prisma;
  return {
    roles: await db.role.findMany({ orderBy: { id: 'asc' }, include: { permissions: { orderBy: { id: 'asc' } } } }),
    userRoles: await db.userRole.findMany({ orderBy: { id: 'asc' } }),
    teamRoles: await db.teamRole.findMany({ orderBy: { id: 'asc' } }),
  };
}

const RELOAD = 'mutation { reloadAccessControlProvisioning { message } }';

/** The three doors of provisioning: REST reload, GraphQL reload, the files as applied at start. */
async function reloadThrough(door: 'rest' | 'graphql' | 'files'): Promise<Outcome> {
  if (door === 'rest') return rest(app, 'POST', '/api/admin/provisioning/access-control/reload');
  if (door === 'graphql') return gql(app, RELOAD, {});
  try {
    await app.services.provisioning.apply();
    return { status: 200, code: undefined, message: undefined, body: null };
  } catch (error) {
    if (!isDomainError(error)) throw error;
    return { status: error.status, code: error.code, message: error.message, body: null };
  }
}

const CREATE = 'mutation($input: CreateRoleInput!) { createRole(input: $input) { uid } }';
/** Creates a custom role as `who` through one door. */
function createRoleAs(door: 'rest' | 'graphql', who: Actor, input: Record<string, unknown>): Promise<Outcome> {
  return door === 'rest'
    ? rest(app, 'POST', '/api/access-control/roles', { auth: who.auth, json: input })
    : gql(app, CREATE, { input }, { auth: who.auth });
}

const DOORS = ['rest', 'graphql', 'files'] as const;

describe.each(DOORS)('a squatted uid or name is a reported conflict through %s', (door) => {
  it('an org Admin holding the uid of a global file role (assigned to itself): 400, nothing filled', async () => {
    const uid = unique('sec_reports').replace(/-/g, '_');
    const squat = await createRoleAs('rest', admin1, { uid, name: unique('custom:squat') });
    expectOutcome(squat, 200);
    expectOutcome(
      await rest(app, 'POST', `/api/access-control/users/${admin1.id}/roles`, { auth: admin1.auth, json: { roleUid: uid } }),
      200,
    );
    writeFile(`apiVersion: 2
roles:
  - name: custom:sec:reports
    uid: ${uid}
    global: true
    version: 1
    permissions:
      - action: users:write
        scope: "global.users:*"
`);
    const before = await state();
    const message = expectOutcome(await reloadThrough(door), 400, 'PROVISIONING_INVALID');
    expect(message).toMatch(
      new RegExp(`roles\\.yaml:4:10 roles\\[0\\]\\.uid: role uid "${uid}" is held by a role of organization 1, not the global scope`),
    );
    expect(await state()).toEqual(before);
    const role = await app.database.prisma.role.findUniqueOrThrow({ where: { uid }, include: { permissions: true } });
    expect({ orgId: role.orgId, permissions: role.permissions.length, provisioned: role.provisioned }).toEqual({
      orgId: 1,
      permissions: 0,
      provisioned: false,
    });
  });

  it('an Admin of organization 2 holding an organization-1 uid: 400, nothing filled', async () => {
    const uid = unique('sec_org1').replace(/-/g, '_');
    expectOutcome(await createRoleAs('rest', admin2, { uid, name: unique('custom:squat2') }), 200);
    writeFile(
      `apiVersion: 2\nroles:\n  - name: custom:sec:org1\n    uid: ${uid}\n    orgId: 1\n    permissions: [{ action: reports:read, scope: "reports:*" }]\n`,
    );
    const before = await state();
    const message = expectOutcome(await reloadThrough(door), 400, 'PROVISIONING_INVALID');
    expect(message).toContain(`roles[0].uid: role uid "${uid}" is held by a role of organization 2, not organization 1`);
    expect(await state()).toEqual(before);
  });

  it('a hand-made role of the declared organization with the uid or the name: 400, never filled', async () => {
    const uid = unique('sec_same').replace(/-/g, '_');
    const name = unique('custom:sec:same');
    expectOutcome(await createRoleAs('rest', admin1, { uid, name: unique('custom:other') }), 200);
    expectOutcome(await createRoleAs('rest', admin1, { name }), 200);
    for (const [entry, field] of [
      [`uid: ${uid}\n    name: custom:sec:wanted`, 'uid'],
      [`name: ${name}`, 'name'],
    ] as const) {
      writeFile(`apiVersion: 2\nroles:\n  - ${entry}\n    version: 5\n    permissions: [{ action: reports:read, scope: "reports:*" }]\n`);
      const before = await state();
      const message = expectOutcome(await reloadThrough(door), 400, 'PROVISIONING_INVALID');
      expect(message).toMatch(new RegExp(`roles\\[0\\]\\.${field}: .* which was not created by provisioning`));
      expect(await state()).toEqual(before);
    }
  });

  it('from copying a hand-made organization role into a global role: 400, nothing written', async () => {
    const uid = unique('sec_src').replace(/-/g, '_');
    expectOutcome(await createRoleAs('rest', admin1, { uid, name: unique('custom:src') }), 200);
    writeFile(`apiVersion: 2\nroles:\n  - name: ${unique('custom:sec:copy')}\n    global: true\n    from:\n      - uid: ${uid}\n`);
    const before = await state();
    expect(expectOutcome(await reloadThrough(door), 400, 'PROVISIONING_INVALID')).toContain('roles[0].from[0]: role "');
    expect(await state()).toEqual(before);
  });
});

describe.each(['rest', 'graphql'] as const)('uids of the reserved forms cannot be taken by hand through %s', (door) => {
  it.each(['prov_abc', 'PROV_abc', 'plugins_x', productRoleUid('plugins:notes:reader'), 'fixed_x', 'basic_x', 'managed_1_users_1'])(
    '%s: 400',
    async (uid) => {
      const before = await state();
      const message = expectOutcome(await createRoleAs(door, admin1, { uid, name: unique('custom:reserved') }), 400, 'VALIDATION_FAILED');
      expect(message).toMatch(/^uid: custom role uids cannot begin with .*"prov_"/);
      expect(await state()).toEqual(before);
    },
  );
});

describe('the legitimate use keeps working', () => {
  it('a new role is provisioned; reloading changes nothing; a higher version updates it', async () => {
    const name = unique('custom:sec:legit');
    const file = (version: number, action: string) =>
      `apiVersion: 2\nroles:\n  - name: ${name}\n    uid: sec_legit\n    global: true\n    version: ${version}\n    permissions: [{ action: ${action}, scope: "reports:*" }]\n`;
    writeFile(file(1, 'reports:read'));
    expectOutcome(await reloadThrough('rest'), 200);
    const created = await app.database.prisma.role.findUniqueOrThrow({ where: { uid: 'sec_legit' }, include: { permissions: true } });
    expect({ orgId: created.orgId, provisioned: created.provisioned, actions: created.permissions.map((p) => p.action) }).toEqual({
      orgId: 0,
      provisioned: true,
      actions: ['reports:read'],
    });
    const before = await state();
    expectOutcome(await reloadThrough('graphql'), 200);
    expect(await state()).toEqual(before);
    writeFile(file(2, 'reports:write'));
    expectOutcome(await reloadThrough('files'), 200);
    const updated = await app.database.prisma.role.findUniqueOrThrow({ where: { uid: 'sec_legit' }, include: { permissions: true } });
    expect({ version: updated.version, actions: updated.permissions.map((p) => p.action) }).toEqual({
      version: 2,
      actions: ['reports:write'],
    });
  });
});
