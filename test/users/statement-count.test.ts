/**
 * The SQL statements of per-row fields over many rows (issue 21 item 4): `users { roles
 * permissions }`, `teams { roles }` and `serviceAccounts { roles }` cost the same number of
 * statements for 3 rows and for 30 (STYLE.md habit 6: count statements where N+1 could creep in).
 * Each row holds one role, so the answer proves the roles were loaded, not skipped.
 */
import { describe, expect, it } from 'vitest';
import type { Credentials } from '../support/app.js';
import { expectData } from '../support/requests.js';
import { app, useSeededApp } from '../support/scene.js';
import { assignTeamRole, assignUserRole, createOrg, createRole, createTeam, createUser, unique } from '../support/subjects.js';

useSeededApp();

type Rows = Record<string, { roles: { uid: string }[] }[]>;

/** Statements of `query` (as `auth`, in `orgId`), after one warm-up run fills the permission cache. */
async function statementsOf(query: string, auth: Credentials, orgId: number): Promise<{ count: number; data: Rows }> {
  expectData(await app.graphql(query, {}, { auth, orgId }));
  app.resetQueries();
  const data = expectData(await app.graphql<Rows>(query, {}, { auth, orgId }));
  return { count: app.queries.length, data };
}

/**
 * Counts `query` over 3 rows, adds 27 with `addRow` (each holding one role), counts again: the
 * two counts must be equal, and every row of `field` but the admin's must list its role.
 */
async function expectConstant(query: string, field: string, addRow: (orgId: number, i: number) => Promise<void>, adminRow = false) {
  const org = await createOrg(app, unique('many'));
  const admin = await createUser(app, unique('admin'), { orgId: org.id, orgRole: 'Admin' });
  const rows = async (from: number, to: number) => {
    for (let i = from; i < to; i++) await addRow(org.id, i);
  };
  const own = adminRow ? 1 : 0;
  await rows(0, 3 - own);
  const few = await statementsOf(query, admin.auth, org.id);
  expect(few.data[field]).toHaveLength(3);
  await rows(3 - own, 30 - own);
  const many = await statementsOf(query, admin.auth, org.id);
  expect(many.data[field]).toHaveLength(30);
  expect(many.data[field]?.filter((row) => row.roles.length === 1)).toHaveLength(30 - own);
  expect(many.count).toBe(few.count);
}

describe('statement count over many rows', () => {
  it('users { roles permissions }: the same statements for 3 users and for 30', async () => {
    await expectConstant(
      '{ users { id roles { uid permissions { action } } permissions { action scope } } }',
      'users',
      async (orgId) => assignUserRole(app, (await createUser(app, unique('member'), { orgId })).id, 'fixed:users:reader', orgId),
      true,
    );
  });

  it('teams { roles }: the same statements for 3 teams and for 30', async () => {
    await expectConstant('{ teams { id roles { uid name } } }', 'teams', async (orgId, i) => {
      const team = await createTeam(app, unique(`team${i}`), { orgId });
      const role = await createRole(app, unique('teamrole'), [{ action: 'teams:read', scope: 'teams:*' }], { orgId });
      await assignTeamRole(app, team.id, role.uid);
    });
  });

  it('serviceAccounts { roles }: the same statements for 3 service accounts and for 30', async () => {
    await expectConstant('{ serviceAccounts { id roles { uid } } }', 'serviceAccounts', async (orgId) => {
      const login = unique('sa');
      const account = await app.database.prisma.user.create({
        data: { login, email: login, name: login, orgId, isServiceAccount: true, orgs: { create: [{ orgId, role: 'Viewer' }] } },
      });
      await assignUserRole(app, account.id, 'fixed:users:reader', orgId);
    });
  });
});
