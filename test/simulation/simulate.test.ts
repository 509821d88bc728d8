/**
 * What-if (POST /api/access-control/simulate, GraphQL simulateAccessChange): who gains and loses
 * what, and through which change; only reachable subjects examined; nothing written; whether the
 * caller could make each change (the write paths' rules, answered); bounds and 404s; both doors
 * answer alike.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_SIMULATED_CHANGES } from '../../src/modules/simulation/inputs.js';
import type { Simulation } from '../../src/modules/simulation/service.js';
import { type Credentials, createTestApp, type TestApp } from '../support/app.js';
import { expectOutcome, gql, rest } from '../support/requests.js';
import {
  type Actor,
  assignTeamRole,
  assignUserRole,
  createRole,
  createTeam,
  createUser,
  type Fixtures,
  p,
  seedFixtures,
  unique,
} from '../support/subjects.js';

let app: TestApp;
let fx: Fixtures;
beforeAll(async () => {
  app = await createTestApp();
  fx = await seedFixtures(app);
});
afterAll(() => app.close());

const QUERY = `query($changes: [AccessChangeInput!]!, $first: Int, $after: String) {
  simulateAccessChange(changes: $changes, first: $first, after: $after) {
    revision allowed examined affected endCursor hasNextPage
    changes { change kind allowed refusal { code message status } }
    summary { action scope gained lost }
    subjects { kind id login gained { action scope change } lost { action scope change } }
  }
}`;

const GRAPHQL_KIND: Record<string, string> = {
  'role.permissions': 'ROLE_PERMISSIONS',
  'user_role.add': 'USER_ROLE_ADD',
  'user_role.remove': 'USER_ROLE_REMOVE',
  'team_role.add': 'TEAM_ROLE_ADD',
  'team_role.remove': 'TEAM_ROLE_REMOVE',
  'team_member.add': 'TEAM_MEMBER_ADD',
  'team_member.remove': 'TEAM_MEMBER_REMOVE',
  'org_user.role': 'ORG_USER_ROLE',
};

type Change = Record<string, unknown> & { kind: string };
type Body = { changes: Change[]; first?: number; after?: string };

/** The simulation over REST (expects 200). */
async function viaRest(body: Body, auth: Credentials = fx.admin.auth): Promise<Simulation> {
  const outcome = await rest(app, 'POST', '/api/access-control/simulate', { json: body, auth });
  expectOutcome(outcome, 200);
  return outcome.body as unknown as Simulation;
}

/** The simulation over GraphQL (expects data), with the kinds as REST names them. */
async function viaGraphql(body: Body, auth: Credentials = fx.admin.auth): Promise<Simulation> {
  const changes = body.changes.map((c) => ({ ...c, kind: GRAPHQL_KIND[c.kind] }));
  const outcome = await gql(app, QUERY, { ...body, changes }, { auth });
  expect(outcome.code, outcome.message).toBeUndefined();
  const answer = (outcome.data as { simulateAccessChange: Simulation }).simulateAccessChange;
  return { ...answer, changes: answer.changes.map((c) => ({ ...c, kind: body.changes[c.change]?.kind as never })) };
}

/** Both doors, which must agree; answers REST's. */
async function simulate(body: Body, auth?: Credentials): Promise<Simulation> {
  const [a, b] = [await viaRest(body, auth), await viaGraphql(body, auth)];
  expect(b).toEqual(a);
  return a;
}

const byLogin = (s: Simulation, login: string) => s.subjects.find((x) => x.login === login);

describe('the difference', () => {
  let holderDirect: Actor;
  let holderTeam: Actor;
  let bystander: Actor;
  let teamId: number;
  const uid = unique('sim-role');

  beforeAll(async () => {
    holderDirect = await createUser(app, unique('sim-direct'));
    holderTeam = await createUser(app, unique('sim-team'));
    bystander = await createUser(app, unique('sim-bystander'));
    await createRole(app, uid, [p('users:write', 'users:*'), p('teams:read', 'teams:*')]);
    await assignUserRole(app, holderDirect.id, uid);
    teamId = (await createTeam(app, unique('sim-team'), { members: [holderTeam.id] })).id;
    await assignTeamRole(app, teamId, uid);
  });

  it("replacing a role's permissions: every holder gains and loses, through the change, counted per permission", async () => {
    const body = {
      changes: [{ kind: 'role.permissions', roleUid: uid, permissions: [p('teams:delete', 'teams:*'), p('teams:read', 'teams:*')] }],
    };
    const s = await simulate(body);
    expect(s.allowed).toBe(true);
    expect(s.examined).toBe(2);
    expect(s.affected).toBe(2);
    for (const login of [holderDirect.login, holderTeam.login]) {
      // Viewers hold teams:read on teams:* anyway: nothing moves for it.
      expect(byLogin(s, login)).toMatchObject({
        kind: 'user',
        gained: [{ action: 'teams:delete', scope: 'teams:*', change: 0 }],
        lost: [{ action: 'users:write', scope: 'users:*', change: 0 }],
      });
    }
    expect(byLogin(s, bystander.login)).toBeUndefined();
    expect(s.summary).toEqual([
      { action: 'teams:delete', scope: 'teams:*', gained: 2, lost: 0 },
      { action: 'users:write', scope: 'users:*', gained: 0, lost: 2 },
    ]);
  });

  it('a disabled holder holds nothing before or after: not examined', async () => {
    const disabled = await createUser(app, unique('sim-disabled'));
    await assignUserRole(app, disabled.id, uid);
    await app.database.prisma.user.update({ where: { id: disabled.id }, data: { isDisabled: true } });
    const s = await simulate({ changes: [{ kind: 'role.permissions', roleUid: uid, permissions: [] }] });
    expect(s.examined).toBe(2);
    expect(s.subjects.map((x) => x.id)).not.toContain(disabled.id);
  });

  it('writes nothing: the role, the change feed and the holders’ permissions stay as they were', async () => {
    const before = await app.database.prisma.permission.count();
    const head = await app.database.prisma.accessChange.count();
    await simulate({ changes: [{ kind: 'role.permissions', roleUid: uid, permissions: [] }] });
    expect(await app.database.prisma.permission.count()).toBe(before);
    expect(await app.database.prisma.accessChange.count()).toBe(head);
    const listed = await rest(app, 'GET', `/api/access-control/users/${holderDirect.id}/permissions`, { auth: fx.admin.auth });
    expect(listed.body).toEqual(expect.arrayContaining([p('users:write', 'users:*')]));
  });

  it('a sequence: joining the team, then the role changing, each permission caused by its own change', async () => {
    const body = {
      changes: [
        { kind: 'team_member.add', teamId, userId: bystander.id },
        { kind: 'role.permissions', roleUid: uid, permissions: [p('users:write', 'users:*'), p('teams:delete', 'teams:*')] },
      ],
    };
    const s = await simulate(body);
    expect(byLogin(s, bystander.login)).toMatchObject({
      gained: [
        { action: 'teams:delete', scope: 'teams:*', change: 1 },
        { action: 'users:write', scope: 'users:*', change: 0 },
      ],
      lost: [],
    });
    expect(byLogin(s, holderDirect.login)?.gained).toEqual([{ action: 'teams:delete', scope: 'teams:*', change: 1 }]);
  });

  it('assignments added and removed, and an org role: the one subject each names', async () => {
    const s = await simulate({
      changes: [
        { kind: 'user_role.add', userId: bystander.id, roleUid: uid },
        { kind: 'user_role.remove', userId: holderDirect.id, roleUid: uid },
        { kind: 'org_user.role', userId: fx.viewer.id, role: 'Editor' },
      ],
    });
    expect(s.examined).toBe(3);
    expect(byLogin(s, bystander.login)?.gained).toEqual([{ action: 'users:write', scope: 'users:*', change: 0 }]);
    expect(byLogin(s, holderDirect.login)?.lost).toEqual([{ action: 'users:write', scope: 'users:*', change: 1 }]);
    expect(byLogin(s, fx.viewer.login)?.gained).toEqual([{ action: 'serviceaccounts:read', scope: 'serviceaccounts:*', change: 2 }]);
  });

  it('a basic role reaches every member with that org role and every API key of it', async () => {
    const key = await rest(app, 'POST', '/api/auth/keys', { json: { name: unique('sim-key'), role: 'Editor' }, auth: fx.admin.auth });
    const editors = await app.database.prisma.orgUser.count({ where: { orgId: 1, role: 'Editor' } });
    const s = await simulate({
      changes: [{ kind: 'role.permissions', roleUid: 'basic_editor', permissions: [p('teams:read', 'teams:*')] }],
    });
    expect(s.examined).toBe(editors + 1);
    expect(s.subjects.find((x) => x.kind === 'apiKey' && x.id === (key.body as { id: number }).id)?.lost).toEqual(
      expect.arrayContaining([{ action: 'serviceaccounts:read', scope: 'serviceaccounts:*', change: 0 }]),
    );
  });

  it('pages the affected subjects', async () => {
    const body = { changes: [{ kind: 'role.permissions', roleUid: uid, permissions: [] }], first: 1 };
    const first = await simulate(body);
    expect(first.subjects).toHaveLength(1);
    expect(first.hasNextPage).toBe(true);
    const second = await simulate({ ...body, after: first.endCursor as string });
    expect(second.subjects).toHaveLength(1);
    expect(second.subjects[0]?.id).not.toBe(first.subjects[0]?.id);
    expect(second).toMatchObject({ hasNextPage: false, endCursor: null });
  });
});

describe('whether the caller could make each change', () => {
  it('needs access:simulate: an Editor is refused 403 on both doors', async () => {
    const body = { changes: [{ kind: 'org_user.role', userId: fx.viewer.id, role: 'Editor' }] };
    expectOutcome(await rest(app, 'POST', '/api/access-control/simulate', { json: body, auth: fx.editor.auth }), 403, 'ACCESS_DENIED');
    const changes = [{ kind: 'ORG_USER_ROLE', userId: fx.viewer.id, role: 'Editor' }];
    expectOutcome(await gql(app, QUERY, { changes }, { auth: fx.editor.auth }), 403, 'ACCESS_DENIED');
  });

  it('answers the refusals of the write paths instead of throwing them', async () => {
    const simulator = await createUser(app, unique('sim-only'));
    await assignUserRole(app, simulator.id, 'fixed:access:simulator');
    const uid = unique('sim-secret');
    await createRole(app, uid, [p('users:delete', 'global.users:*')]);
    const s = await simulate(
      {
        changes: [
          { kind: 'user_role.add', userId: fx.viewer.id, roleUid: uid },
          { kind: 'team_member.add', teamId: fx.team.id, userId: fx.editor.id },
        ],
      },
      simulator.auth,
    );
    expect(s.allowed).toBe(false);
    expect(s.changes.map((c) => [c.allowed, c.refusal?.code])).toEqual([
      [false, 'ACCESS_DENIED'],
      [false, 'ACCESS_DENIED'],
    ]);
    // An org Admin holds users.roles:add on delegate but not users:delete: the delegation rule refuses.
    const admin = await simulate({ changes: [{ kind: 'user_role.add', userId: fx.viewer.id, roleUid: uid }] }, fx.orgAdmin.auth);
    expect(admin.changes[0]).toMatchObject({ allowed: false, refusal: { code: 'ACCESS_DENIED', status: 403 } });
    expect(admin.changes[0]?.refusal?.message).toContain('delegation of users:delete on global.users:*');
    expect(byLogin(admin, fx.viewer.login)?.gained).toEqual([{ action: 'users:delete', scope: 'global.users:*', change: 0 }]);
    // The state the writes refuse: already a member; the team's members are who they are.
    const member = await simulate({ changes: [{ kind: 'team_member.add', teamId: fx.team.id, userId: fx.editor.id }] });
    expect(member.changes[0]?.refusal?.code).toBe('ALREADY_TEAM_MEMBER');
  });

  it('a Service Admin may make what an org Admin may not: a global assignment', async () => {
    const uid = unique('sim-global');
    await createRole(app, uid, [p('teams:read', 'teams:*')], { orgId: 0 });
    const body = { changes: [{ kind: 'user_role.add', userId: fx.viewer.id, roleUid: uid, global: true }] };
    expect((await simulate(body, fx.orgAdmin.auth)).changes[0]?.refusal?.message).toContain('Service Admin');
    expect((await simulate(body)).allowed).toBe(true);
  });
});

describe('input', () => {
  const post = (json: unknown, auth: Credentials = fx.admin.auth) => rest(app, 'POST', '/api/access-control/simulate', { json, auth });

  it(`refuses more than ${MAX_SIMULATED_CHANGES} changes with TOO_MANY_CHANGES`, async () => {
    const change = { kind: 'org_user.role', userId: fx.viewer.id, role: 'Editor' };
    expectOutcome(await post({ changes: Array(MAX_SIMULATED_CHANGES + 1).fill(change) }), 400, 'TOO_MANY_CHANGES');
    expectOutcome(await post({ changes: Array(MAX_SIMULATED_CHANGES).fill(change) }), 200);
  });

  it.each([
    ['an unknown kind', { kind: 'role.delete', roleUid: 'x' }, 400, 'VALIDATION_FAILED'],
    ['a role without permissions', { kind: 'role.permissions', roleUid: 'x' }, 400, 'VALIDATION_FAILED'],
    ['an unknown role', { kind: 'role.permissions', roleUid: 'no-such-role', permissions: [] }, 404, 'ROLE_NOT_FOUND'],
    ['a basic role assigned', { kind: 'user_role.add', userId: 2, roleUid: 'basic_viewer' }, 400, 'ROLE_NOT_ASSIGNABLE'],
    ['an unknown team', { kind: 'team_role.add', teamId: 999999, roleUid: 'basic_viewer' }, 404, 'TEAM_NOT_FOUND'],
  ])('%s: %i %s', async (_name, change, status, code) => {
    expectOutcome(await post({ changes: [change] }), status, code);
  });

  it('a fixed role is refused for everyone; another organization’s user answers 404 (the wall)', async () => {
    const fixed = await app.database.prisma.role.findFirstOrThrow({ where: { name: 'fixed:teams:reader' } });
    expectOutcome(await post({ changes: [{ kind: 'role.permissions', roleUid: fixed.uid, permissions: [] }] }), 400, 'ROLE_IS_FIXED');
    const outside = { kind: 'org_user.role', userId: fx.org2.admin.id, role: 'Viewer' };
    expectOutcome(await post({ changes: [outside] }), 404, 'USER_NOT_FOUND');
  });
});
