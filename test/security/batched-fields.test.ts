/**
 * Batched rows: `users { roles }`, `teams { roles }` and `serviceAccounts { roles }` load every
 * row of a list in one batch (modules/shared/batch.ts), and each row still answers exactly what
 * it answers alone, by the same service: its roles where the caller may read them (the
 * `read` requirement, or a member's own team), else null with an ACCESS_DENIED error at that row
 * only. REST GET .../:id/roles gives the same answer for every row, as 200 or 403.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { expectOutcome, gql, rest } from '../support/requests.js';
import { app, fx, useSeededApp } from '../support/scene.js';
import { type Actor, assignTeamRole, assignUserRole, createRole, createTeam, createUser, p } from '../support/subjects.js';

useSeededApp();

type Row = { id: number; roles: { uid: string }[] | null };
type Body = { data?: Record<string, Row[]>; errors?: { path?: (string | number)[]; extensions?: { code?: string } }[] };

let reader: Actor;

beforeAll(async () => {
  // Reads the user list, and the roles of the editor and of the fixture service account only.
  reader = await createUser(app, 'batch-reader', {
    permissions: [
      p('org.users:read', 'users:*'),
      p('serviceaccounts:read', 'serviceaccounts:*'),
      p('users.roles:read', `users:id:${fx.editor.id}`),
      p('users.roles:read', `users:id:${fx.serviceAccount.id}`),
    ],
  });
  await createRole(app, 'batch-editor-role', [p('reports:read', 'reports:*')]);
  await assignUserRole(app, fx.editor.id, 'batch-editor-role');
  await assignUserRole(app, fx.serviceAccount.id, 'batch-editor-role');
  await assignUserRole(app, fx.viewer.id, 'batch-editor-role');
  await createRole(app, 'batch-team-role', [p('reports:read', 'reports:*')]);
  await assignTeamRole(app, fx.team.id, 'batch-team-role');
  const other = await createTeam(app, 'batch-other-team');
  await assignTeamRole(app, other.id, 'batch-team-role');
});

/**
 * Runs `{ <field> { id roles { uid } } }` as `auth` and checks each row against REST `GET
 * <restPath(id)>`: the same uids on 200, null with one ACCESS_DENIED error at the row on 403.
 * Returns how many rows were readable and how many refused.
 */
async function expectEachRowAsAlone(field: string, restPath: (id: number) => string, auth: Actor['auth']) {
  const out = await gql(app, `{ ${field} { id roles { uid } } }`, {}, { auth });
  expect(out.status).toBe(200);
  const body = out.body as Body;
  const rows = body.data?.[field] ?? [];
  const errorAt = new Map((body.errors ?? []).map((e) => [JSON.stringify(e.path), e.extensions?.code]));
  let readable = 0;
  for (const [i, row] of rows.entries()) {
    const alone = await rest(app, 'GET', restPath(row.id), { auth });
    if (alone.status === 200) {
      readable += 1;
      expect(row.roles?.map((r) => r.uid)).toEqual((alone.body as { uid: string }[]).map((r) => r.uid));
      expect(errorAt.has(JSON.stringify([field, i, 'roles']))).toBe(false);
    } else {
      expectOutcome(alone, 403, 'ACCESS_DENIED');
      expect(row.roles).toBeNull();
      expect(errorAt.get(JSON.stringify([field, i, 'roles']))).toBe('ACCESS_DENIED');
    }
  }
  expect(errorAt.size).toBe(rows.length - readable);
  return { readable, refused: rows.length - readable };
}

describe('a batched roles field answers each row as alone, on both doors', () => {
  it('users { roles }: the rows the caller may read (users.roles:read on users:id:<id>), every other row refused', async () => {
    const counts = await expectEachRowAsAlone('users', (id) => `/api/access-control/users/${id}/roles`, reader.auth);
    expect(counts.readable).toBe(1); // the editor; the viewer's role stays unseen
    expect(counts.refused).toBeGreaterThanOrEqual(4);
  });

  it('serviceAccounts { roles }: the same rule on the same service', async () => {
    const counts = await expectEachRowAsAlone('serviceAccounts', (id) => `/api/access-control/users/${id}/roles`, reader.auth);
    expect(counts).toEqual({ readable: 1, refused: 0 });
  });

  it("teams { roles }: a Viewer reads its own team's roles, not another team's", async () => {
    const counts = await expectEachRowAsAlone('teams', (id) => `/api/access-control/teams/${id}/roles`, fx.viewer.auth);
    expect(counts.readable).toBe(1);
    expect(counts.refused).toBeGreaterThanOrEqual(1);
  });

  it('an Admin reads every row, the same as REST', async () => {
    for (const field of ['users', 'serviceAccounts'] as const) {
      const counts = await expectEachRowAsAlone(field, (id) => `/api/access-control/users/${id}/roles`, fx.orgAdmin.auth);
      expect(counts.refused).toBe(0);
    }
    expect((await expectEachRowAsAlone('teams', (id) => `/api/access-control/teams/${id}/roles`, fx.orgAdmin.auth)).refused).toBe(0);
  });
});

describe('users { teams } in one batch answers each row as user(id) { teams } alone', () => {
  it.each([
    ['a reader of org users', () => reader],
    ['a Viewer', () => fx.viewer],
    ['an Admin', () => fx.orgAdmin],
  ])('%s', async (_who, actor) => {
    const auth = actor().auth;
    const out = await gql(app, '{ users { id teams { id } } }', {}, { auth });
    expect(out.status).toBe(200);
    const rows = (out.body as { data?: { users: { id: number; teams: { id: number }[] | null }[] } }).data?.users ?? [];
    expect(rows.length).toBeGreaterThanOrEqual(4);
    const withTeams = rows.filter((r) => (r.teams?.length ?? 0) > 0);
    for (const row of rows) {
      const alone = await gql(app, 'query ($id: Int!) { user(id: $id) { teams { id } } }', { id: row.id }, { auth });
      expect({ id: row.id, teams: row.teams }).toEqual({
        id: row.id,
        teams: (alone.data as { user: { teams: unknown } } | null)?.user.teams,
      });
    }
    // The fixture team's members (editor, viewer) list it wherever the caller may read teams.
    if (withTeams.length > 0) expect(withTeams.map((r) => r.id)).toEqual(expect.arrayContaining([fx.editor.id, fx.viewer.id]));
  });
});
