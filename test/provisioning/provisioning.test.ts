/**
 * RBAC provisioning: Grafana's apiVersion 2 files under PROVISIONING_PATH,
 * applied by the service (as at start) and on POST /api/admin/provisioning/access-control/reload
 * and `reloadAccessControlProvisioning`. The commented example directory applies cleanly; roles
 * are created, updated only with a higher version, copied with `from`, deleted with `force`;
 * basic roles are edited by uid; team roles are assigned and revoked; product files register
 * roles; a second apply changes nothing; a broken file changes nothing and names file, line,
 * path and problem.
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isDomainError } from '../../src/kernel/errors.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { expectOutcome, gql, rest } from '../support/requests.js';
import { type Actor, createRole, createTeam, createUser, p } from '../support/subjects.js';

const EXAMPLE = new URL('../../examples/provisioning', import.meta.url).pathname;
let dir: string;
let app: TestApp;
let orgAdmin: Actor;
let teamId: number;

const file = (name: string, text: string) => {
  mkdirSync(join(dir, 'access-control'), { recursive: true });
  writeFileSync(join(dir, 'access-control', name), text);
};

/** Everything provisioning can touch, for before/after comparisons. */
async function snapshot() {
  const db = app.database.prisma;
  return {
    roles: await db.role.findMany({ orderBy: { id: 'asc' }, include: { permissions: { orderBy: { id: 'asc' } } } }),
    teamRoles: await db.teamRole.findMany({ orderBy: { id: 'asc' } }),
    grants: await db.basicRoleGrant.findMany({ orderBy: { id: 'asc' } }),
  };
}

/** The failure of an apply that must fail. */
async function applyFails(): Promise<string> {
  try {
    await app.services.provisioning.apply();
  } catch (error) {
    if (isDomainError(error) && error.code === 'PROVISIONING_INVALID') return error.message;
    throw error;
  }
  throw new Error('apply succeeded');
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'portcullis-provisioning-'));
  cpSync(EXAMPLE, dir, { recursive: true });
  app = await createTestApp({ env: { PROVISIONING_PATH: dir } });
  orgAdmin = await createUser(app, 'prov-admin', { orgRole: 'Admin' });
  teamId = (await createTeam(app, 'Reporting')).id;
  await createRole(app, 'legacy', [p('reports:read', 'reports:*')], { orgId: 0, name: 'custom:legacy' });
});
afterAll(async () => {
  await app.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the example directory', () => {
  it('applies: roles, from, basic role by uid, deletion, team assignments and a product registration', async () => {
    const result = await app.services.provisioning.apply();
    expect(result.files).toHaveLength(2);
    expect(result.products).toEqual(['notes']);
    const db = app.database.prisma;
    const reader = await db.role.findUniqueOrThrow({ where: { uid: 'custom_reports_reader' }, include: { permissions: true } });
    expect(reader.permissions.map((x) => `${x.action} ${x.scope}`)).toEqual(['reports:read reports:*']);
    const viewer = await db.role.findUniqueOrThrow({ where: { uid: 'basic_viewer' }, include: { permissions: true } });
    expect(viewer.version).toBe(1);
    expect(viewer.permissions.map((x) => x.action)).toEqual(expect.arrayContaining(['reports:read', 'teams:read', 'org.users:read']));
    expect(await db.role.count({ where: { name: 'custom:legacy' } })).toBe(0);
    const assigned = await db.teamRole.findMany({ where: { teamId }, include: { role: true } });
    expect(assigned.map((a) => a.role.name).sort()).toEqual(['custom:reports:editor', 'fixed:teams:reader']);
    expect(await db.role.count({ where: { group: 'notes' } })).toBe(2);
  });

  it('applying again (a restart, a reload) changes nothing', async () => {
    const before = await snapshot();
    const again = await app.services.provisioning.apply();
    expect(again).toMatchObject({ rolesCreated: 0, rolesUpdated: 0, rolesDeleted: 0, assignmentsAdded: 0, assignmentsRemoved: 0 });
    expect(await snapshot()).toEqual(before);
  });
});

describe('updates and revocations', () => {
  it('updates a role only with a higher version, and revokes a team role', async () => {
    file(
      'z-more.yml',
      `apiVersion: 2
roles:
  - name: custom:reports:editor
    uid: custom_reports_editor
    version: 1
    global: true
    permissions: [{ action: reports:read, scope: "reports:*" }]
teams:
  - name: Reporting
    roles:
      - name: fixed:teams:reader
        global: true
        state: absent
`,
    );
    await app.services.provisioning.apply();
    const db = app.database.prisma;
    const editor = await db.role.findUniqueOrThrow({ where: { uid: 'custom_reports_editor' }, include: { permissions: true } });
    expect(editor.permissions).toHaveLength(3); // same version: untouched (roles.yaml's copy wins too)
    expect(await db.teamRole.count({ where: { teamId } })).toBe(1);

    file(
      'z-more.yml',
      'apiVersion: 2\nroles:\n  - uid: custom_reports_editor\n    global: true\n    version: 2\n    permissions: [{ action: reports:read, scope: "reports:*" }]\n',
    );
    await app.services.provisioning.apply();
    const updated = await db.role.findUniqueOrThrow({ where: { uid: 'custom_reports_editor' }, include: { permissions: true } });
    expect({ version: updated.version, n: updated.permissions.length }).toEqual({ version: 2, n: 1 });
    rmSync(join(dir, 'access-control', 'z-more.yml'));
  });
});

describe('a broken file changes nothing and names the problem', () => {
  const cases = [
    { name: 'bad YAML', text: 'apiVersion: 2\nroles:\n  - name: [unclosed\n', expect: /zz-bad\.yaml:\d+:\d+: invalid YAML/ },
    {
      name: 'unknown role in from',
      text: 'apiVersion: 2\nroles:\n  - name: custom:new\n    from:\n      - uid: nope\n',
      expect: /zz-bad\.yaml:5:9 roles\[0\]\.from\[0\]: role uid "nope" to copy permissions from does not exist/,
    },
    {
      name: 'unknown team',
      text: 'apiVersion: 2\nteams:\n  - name: Ghosts\n    roles: []\n',
      expect: /zz-bad\.yaml:3:11 teams\[0\]\.name: team "Ghosts" does not exist/,
    },
    {
      name: 'fixed role changed',
      text: 'apiVersion: 2\nroles:\n  - name: fixed:teams:reader\n    global: true\n    version: 9\n',
      expect: /zz-bad\.yaml:3:11 roles\[0\]\.name: fixed role "fixed:teams:reader" cannot be changed/,
    },
    {
      name: 'bad scope',
      text: 'apiVersion: 2\nroles:\n  - name: custom:x\n    permissions:\n      - action: a:b\n        scope: "a:*:b"\n',
      expect: /zz-bad\.yaml:6:16 roles\[0\]\.permissions\[0\]\.scope: scope "a:\*:b": a wildcard is only valid as the last segment/,
    },
    { name: 'unknown key', text: 'apiVersion: 2\nrole: []\n', expect: /zz-bad\.yaml:1:1: Unrecognized key: "role"/ },
    {
      name: 'a version past the ceiling of every door',
      text: 'apiVersion: 2\nroles:\n  - name: custom:far\n    global: true\n    version: 2147483648\n',
      expect: /zz-bad\.yaml:5:14 roles\[0\]\.version: version is larger than 2147483647, the highest version/,
    },
    {
      name: 'more permissions than a role may hold',
      text: `apiVersion: 2\nroles:\n  - name: custom:huge\n    global: true\n    permissions:\n${Array.from({ length: 1001 }, (_, i) => `      - action: "huge:a${i}"\n`).join('')}`,
      expect: /zz-bad\.yaml:\d+:\d+ roles\[0\]\.permissions: a role holds at most 1000 permissions, this one would hold 1001/,
    },
  ];
  for (const c of cases) {
    it(`${c.name}: also the valid files before it stay unapplied`, async () => {
      // A valid change in another file, which must not land either.
      file('a-valid.yaml', 'apiVersion: 2\nroles:\n  - name: custom:would-be\n    global: true\n');
      file('zz-bad.yaml', c.text);
      try {
        const before = await snapshot();
        expect(await applyFails()).toMatch(c.expect);
        expect(await snapshot()).toEqual(before);
      } finally {
        rmSync(join(dir, 'access-control', 'a-valid.yaml'));
        rmSync(join(dir, 'access-control', 'zz-bad.yaml'));
      }
    });
  }

  it('a product file with an action of another product: line of the action', async () => {
    writeFileSync(
      join(dir, 'plugins', 'evil.json'),
      '{\n  "productId": "evil",\n  "roles": [\n    {"role": {"name": "plugins:evil:x", "permissions": [{"action": "roles:write"}]}}\n  ]\n}\n',
    );
    expect(await applyFails()).toMatch(
      /evil\.json:4:\d+ roles\[0\]\.role\.permissions\[0\]\.action: action "roles:write" must start with "evil\." or "evil:"/,
    );
    rmSync(join(dir, 'plugins', 'evil.json'));
  });

  it('two files for one product (billing.json and billing.yml) are refused naming both; nothing is applied', async () => {
    const billing = (grant: string) => ({ productId: 'billing', roles: [{ role: { name: 'plugins:billing:reader' }, grants: [grant] }] });
    writeFileSync(join(dir, 'plugins', 'billing.json'), JSON.stringify(billing('Viewer')));
    writeFileSync(join(dir, 'plugins', 'billing.yml'), JSON.stringify(billing('Admin')));
    try {
      const before = await snapshot();
      const message = await applyFails();
      expect(message).toMatch(/billing\.json, .*billing\.yml: 2 files register product "billing"; keep one file per product/);
      expect(await snapshot()).toEqual(before);
      const reload = await rest(app, 'POST', '/api/admin/provisioning/access-control/reload');
      expect(expectOutcome(reload, 400, 'PROVISIONING_INVALID')).toBe(message);
    } finally {
      rmSync(join(dir, 'plugins', 'billing.json'));
      rmSync(join(dir, 'plugins', 'billing.yml'));
    }
  });
});

describe('POST /api/admin/provisioning/access-control/reload', () => {
  it('200 for the Service Admin, 403 for an org Admin, 400 with the same message for a broken file; same on GraphQL', async () => {
    expectOutcome(await rest(app, 'POST', '/api/admin/provisioning/access-control/reload'), 200);
    expectOutcome(await rest(app, 'POST', '/api/admin/provisioning/access-control/reload', { auth: orgAdmin.auth }), 403, 'ACCESS_DENIED');
    const mutation = 'mutation { reloadAccessControlProvisioning { message } }';
    expectOutcome(await gql(app, mutation, {}), 200);
    file('zz-bad.yaml', 'apiVersion: 2\nteams:\n  - name: Ghosts\n');
    const bad = await rest(app, 'POST', '/api/admin/provisioning/access-control/reload');
    expect(expectOutcome(bad, 400, 'PROVISIONING_INVALID')).toMatch(
      /nothing was applied: .*zz-bad\.yaml:3:11 teams\[0\]\.name: team "Ghosts"/,
    );
    expectOutcome(await gql(app, mutation, {}), 400, 'PROVISIONING_INVALID');
    rmSync(join(dir, 'access-control', 'zz-bad.yaml'));
  });
});
