/**
 * No N+1 (issue #3 item 3): `viewer { permissions, roles, teams { roles } }`, `user(id) { roles,
 * permissions }`, `team(id) { roles }` and `serviceAccount(id) { roles, permissions }` cost a
 * constant number of SQL statements whatever the number of roles and permissions (Prisma-backed
 * fields spread `...query`, so a nested selection is one query). Each query runs with a cold
 * permission cache, with 1 and then 30 roles per subject, 4 permissions per role. (The viewer
 * query costs 2 statements per team of the caller: Team.roles and its permissions.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { expectOutcome, gql } from '../support/requests.js';
import { type Actor, assignUserRole, createRole, createTeam, p, seedFixtures } from '../support/subjects.js';

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
