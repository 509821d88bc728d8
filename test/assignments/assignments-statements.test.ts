/**
 * No N+1: `viewer { permissions, roles, teams { roles } }`, `user(id) { roles,
 * permissions }`, `team(id) { roles }` and `serviceAccount(id) { roles, permissions }` cost a
 * constant number of SQL statements whatever the number of roles and permissions (Prisma-backed
 * fields spread `...query`, so a nested selection is one query). Each query runs with a cold
 * permission cache, with 1 and then 30 roles per subject, 4 permissions per role. (Team.roles of
 * the viewer's teams is one batch: shared/batch.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { expectOutcome, gql } from '../support/requests.js';
import { type Actor, assignUserRole, createOrg, createRole, createTeam, createUser, p, seedFixtures } from '../support/subjects.js';

let app: TestApp;
let subject: Actor;
let sa: { id: number };
let teams: { id: number }[];

const PERMISSIONS_PER_ROLE = 4;

/** Gives the subject, the service account and each team exactly `n` generated roles. */
async function populate(n: number): Promise<void> {
  const db = app.database.prisma;
  await db.userRole.deleteMany({ where: { role: { uid: { startsWith: 'gen-' } } } });
  await db.teamRole.deleteMany({});
  await db.role.deleteMany({ where: { uid: { startsWith: 'gen-' } } });
  for (let i = 0; i < n; i++) {
    const role = await db.role.create({
      data: {
        uid: `gen-${i}`,
        name: `generated ${i}`,
        orgId: 1,
        permissions: { create: Array.from({ length: PERMISSIONS_PER_ROLE }, (_, j) => p(`gen${i}:act${j}`, `gen${i}:id:${j}`)) },
      },
    });
    await db.userRole.createMany({ data: [subject.id, sa.id].map((userId) => ({ userId, roleId: role.id, orgId: 1 })) });
    await db.teamRole.createMany({ data: teams.map((t) => ({ teamId: t.id, roleId: role.id, orgId: 1 })) });
  }
}

/** Statements one operation sends with a cold cache, and its data. */
async function measure(query: string, variables: Record<string, unknown>, asSubject: boolean) {
  app.services.access.invalidate();
  app.resetQueries();
  const out = await gql(app, query, variables, asSubject ? { auth: subject.auth } : {});
  expectOutcome(out, 200);
  return { statements: app.queries.length, data: out.data as Record<string, unknown> };
}

const VIEWER = `{ viewer {
  permissions { action scope }
  roles { uid permissions { action scope } }
  teams { id name roles { uid permissions { action scope } } }
} }`;

const SUBJECTS = `query ($user: Int!, $sa: Int!, $team: Int!) {
  user(id: $user) { roles(includeHidden: true) { uid permissions { action } } permissions { action scope } }
  serviceAccount(id: $sa) { roles { uid permissions { action } } permissions { action scope } }
  team(id: $team) { roles { uid permissions { action } } }
}`;

beforeAll(async () => {
  app = await createTestApp();
  const fx = await seedFixtures(app);
  // The fixture viewer, a member of the fixture team and of a second one.
  subject = fx.viewer;
  sa = fx.serviceAccount;
  teams = [fx.team, await createTeam(app, 'second-team', { members: [subject.id] })];
  // The subject may read its teams' roles (Team.roles needs teams.roles:read on teams:id:<id>).
  await createRole(app, 'team-role-reader', [p('teams.roles:read', 'teams:*')], { name: 'team role reader' });
  await assignUserRole(app, subject.id, 'team-role-reader');
  // The subject's first request also records when it was last seen (one write, then none for
  // 5 minutes): made here, so the counts below are the query's own.
  await app.request('/api/user', { auth: subject.auth });
  await app.services.sessions.seenWritesSettled();
});

afterAll(() => app.close());

describe('SQL statements of the role and permission fields', () => {
  it('viewer { permissions roles { permissions } teams { roles { permissions } } }: the same count for 1 and 30 roles', async () => {
    await populate(1);
    const one = await measure(VIEWER, {}, true);
    await populate(30);
    const thirty = await measure(VIEWER, {}, true);
    const viewer = thirty.data.viewer as { permissions: unknown[]; roles: { permissions: unknown[] }[]; teams: { roles: unknown[] }[] };
    // 30 generated roles + the team role reader + basic:viewer, directly or through the teams.
    expect(viewer.roles).toHaveLength(32);
    expect(viewer.teams.map((t) => t.roles.length)).toEqual([30, 30]);
    expect(viewer.permissions.length).toBeGreaterThan(30 * PERMISSIONS_PER_ROLE);
    expect(thirty.statements).toBe(one.statements);
    console.info(`viewer query: ${one.statements} SQL statements with 1 role per subject, ${thirty.statements} with 30`);
  });

  it('user(id) { roles permissions }, serviceAccount(id) { roles permissions }, team(id) { roles }: the same count for 1 and 30 roles', async () => {
    const variables = () => ({ user: subject.id, sa: sa.id, team: teams[0]?.id });
    await populate(1);
    const one = await measure(SUBJECTS, variables(), false);
    await populate(30);
    const thirty = await measure(SUBJECTS, variables(), false);
    const data = thirty.data as {
      user: { roles: { permissions: unknown[] }[]; permissions: unknown[] };
      serviceAccount: { roles: unknown[]; permissions: unknown[] };
      team: { roles: unknown[] };
    };
    expect(data.user.roles).toHaveLength(31);
    expect(data.user.roles[0]?.permissions).toHaveLength(PERMISSIONS_PER_ROLE);
    expect(data.user.permissions.length).toBeGreaterThan(30 * PERMISSIONS_PER_ROLE);
    expect(data.serviceAccount.roles).toHaveLength(30);
    expect(data.serviceAccount.permissions.length).toBeGreaterThan(30 * PERMISSIONS_PER_ROLE);
    expect(data.team.roles).toHaveLength(30);
    expect(thirty.statements).toBe(one.statements);
    console.info(`subject fields query: ${one.statements} SQL statements with 1 role per subject, ${thirty.statements} with 30`);
  });
});

/**
 * Per-row fields over many rows: the same statements for 5 rows and for 200.
 * Rows live in an organization of their own, read by its Admin; each user, team and service
 * account holds its own role (2 permissions), each team one member, so every answer below
 * proves the rows were loaded, not skipped.
 */
describe('SQL statements of per-row fields over 5 and 200 rows', () => {
  let orgId: number;
  let admin: Actor;
  let rows = 0;

  /** Adds users, teams and service accounts (each with its own role) until there are `n` of each. */
  async function grow(n: number): Promise<void> {
    const db = app.database.prisma;
    const range = Array.from({ length: n - rows }, (_, k) => `r${orgId}-${rows + k}`);
    await db.role.createMany({
      data: range.flatMap((r) => ['u', 't', 's'].map((kind) => ({ uid: `${kind}${r}`, name: `custom:${kind}${r}`, orgId }))),
    });
    const roles = new Map(
      (await db.role.findMany({ where: { orgId }, select: { id: true, uid: true } })).map((role) => [role.uid, role.id] as const),
    );
    const added = range.flatMap((r) => ['u', 't', 's'].map((kind) => roles.get(`${kind}${r}`) ?? 0));
    await db.permission.createMany({
      data: added.flatMap((roleId) =>
        [p('teams:read', `teams:id:${roleId}`), p('users:read', `users:id:${roleId}`)].map((x) => ({ ...x, roleId })),
      ),
    });
    for (const r of range) {
      const user = await db.user.create({
        data: { login: `u${r}`, email: `u${r}@example.test`, orgId, orgs: { create: [{ orgId, role: 'Viewer' }] } },
      });
      const account = await db.user.create({
        data: { login: `s${r}`, email: `s${r}`, orgId, isServiceAccount: true, orgs: { create: [{ orgId, role: 'Viewer' }] } },
      });
      const team = await db.team.create({ data: { name: `t${r}`, orgId, members: { create: [{ userId: user.id, orgId }] } } });
      await db.userRole.createMany({
        data: [
          { userId: user.id, roleId: roles.get(`u${r}`) ?? 0, orgId },
          { userId: account.id, roleId: roles.get(`s${r}`) ?? 0, orgId },
        ],
      });
      await db.teamRole.create({ data: { teamId: team.id, roleId: roles.get(`t${r}`) ?? 0, orgId } });
    }
    rows = n;
    app.services.access.invalidate();
  }

  type Row = {
    id: number;
    roles?: { uid: string; permissions?: unknown[] }[];
    members?: unknown[];
    teams?: unknown[];
    grantedRoles?: unknown[];
  };

  /** Statements of `query` as the organization's Admin, after a warm-up run (the permission cache full), and its rows. */
  async function statementsOf(query: string): Promise<{ statements: number; rows: Row[] }> {
    expectOutcome(await gql(app, query, {}, { auth: admin.auth, orgId }), 200);
    app.resetQueries();
    const out = await gql(app, query, {}, { auth: admin.auth, orgId });
    expectOutcome(out, 200);
    return { statements: app.queries.length, rows: Object.values(out.data as Record<string, Row[]>)[0] ?? [] };
  }

  /** Each query, what a row of 200 must answer (its own role, loaded with what was asked), and its baseline. */
  const QUERIES: Record<string, { query: string; row: (row: Row) => boolean; baseline?: string }> = {
    'users { roles { permissions } }': {
      query: '{ users { id roles { uid permissions { action } } } }',
      row: (r) =>
        r.id === admin.id || (r.roles?.length === 1 && r.roles[0]?.uid.startsWith('u') === true && r.roles[0].permissions?.length === 2),
    },
    'teams { roles { permissions } members }': {
      query: '{ teams { id roles { uid permissions { action } } members { id } } }',
      row: (r) =>
        r.roles?.length === 1 &&
        r.roles[0]?.uid.startsWith('t') === true &&
        r.roles[0].permissions?.length === 2 &&
        r.members?.length === 1,
    },
    'serviceAccounts { roles }': {
      query: '{ serviceAccounts { id roles { uid } } }',
      row: (r) => r.roles?.length === 1 && r.roles[0]?.uid.startsWith('s') === true,
    },
    'users { teams }': {
      query: '{ users { id teams { id name } } }',
      row: (r) => r.id === admin.id || r.teams?.length === 1,
    },
    'users { permissions }': { query: '{ users { id permissions { action } } }', row: () => true },
    // The listing itself reads 500 roles per statement (roles/listing.ts): counted apart.
    'roles { grantedRoles }': {
      query: '{ roles(includeHidden: true) { uid grantedRoles { uid } } }',
      row: (r) => Array.isArray(r.grantedRoles),
      baseline: '{ roles(includeHidden: true) { uid } }',
    },
  };

  const counts = new Map<string, { few: number; many: number; rows: Row[] }>();

  /** Statements of `name`'s query, less those of its baseline. */
  async function measure(name: string) {
    const { query, baseline } = QUERIES[name] ?? { query: '' };
    const measured = await statementsOf(query);
    return { statements: measured.statements - (baseline ? (await statementsOf(baseline)).statements : 0), rows: measured.rows };
  }

  beforeAll(async () => {
    orgId = (await createOrg(app, 'many-rows')).id;
    admin = await createUser(app, 'many-rows-admin', { orgId, orgRole: 'Admin' });
    await grow(5);
    const few = new Map<string, number>();
    for (const name of Object.keys(QUERIES)) few.set(name, (await measure(name)).statements);
    await grow(200);
    for (const name of Object.keys(QUERIES)) {
      const many = await measure(name);
      counts.set(name, { few: few.get(name) ?? -1, many: many.statements, rows: many.rows });
    }
  }, 120_000);

  for (const [name, { row }] of Object.entries(QUERIES)) {
    it(`${name}: the same count for 5 and 200 rows`, () => {
      const { few, many, rows } = counts.get(name) ?? { few: -1, many: -2, rows: [] };
      console.info(`${name}: ${few} SQL statements over 5 rows, ${many} over 200`);
      expect(rows.length).toBeGreaterThanOrEqual(200);
      expect(rows.filter((r) => !row(r))).toEqual([]);
      expect(many).toBe(few);
    });
  }
});
