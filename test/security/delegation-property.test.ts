/**
 * The one delegation rule, property-tested over every path to a permission (SECURITY.md "One
 * delegation rule for every path to a permission"): random callers (an org role and a random
 * custom role) take random paths (a role assignment, joining a team, an org role change, a
 * service account's role, a service-account token, an API key, control of another account:
 * disable, profile, logout, password) that would give random permissions, org roles or a
 * Service Admin's account, the caller's own permissions held for good or only until a moment and
 * an assignment ending before it, after it or never; each outcome is compared with an INDEPENDENT oracle
 * (delegation-oracle.ts), and so is what was written: the grant exists exactly when accepted.
 *
 * Every draw writes its own caller and subject straight through Prisma, past the services, on
 * either database. Most draws call the services (both doors' code path); one in ten goes through REST and one in ten through GraphQL with the
 * caller's own Basic credentials. The seed is fixed (replay with PROPERTY_SEED / PROPERTY_PATH,
 * as the assignment property test does).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PermissionPair } from '../../src/kernel/catalogue.js';
import { isDomainError } from '../../src/kernel/errors.js';
import { hashPassword } from '../../src/platform/passwords.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { type Outcome as Answer, gql, rest } from '../support/requests.js';
import { SUBJECT_PASSWORD, userPrincipal } from '../support/subjects.js';
import { BASIC, covers, type Draw, draws, expected, type Ids, type PathKind, scopeMatches } from './delegation-oracle.js';

const RUNS = Number(process.env.PROPERTY_RUNS ?? 420);
const SEED = process.env.PROPERTY_SEED ? Number(process.env.PROPERTY_SEED) : 0x5eed18;
const PATH = process.env.PROPERTY_PATH;

type Outcome = 'accepted' | 'refused';
type Door = 'service' | 'rest' | 'graphql';

let app: TestApp;
let passwordHash: string;
let n = 0;

/** One draw as written: its caller and the ids of its subjects. */
interface Scene extends Ids {
  i: number;
  login: string;
  callerId: number;
  roleId: number;
  roleUid: string;
  /** assign: the assignment's expiresAt (ISO), absent when it is for good. */
  expiresAt?: string;
}

/**
 * Writes the caller and the subjects of `d` in one transaction straight through Prisma, past the
 * services (rules in the module comment), on either database.
 */
async function writeScene(d: Draw): Promise<Scene> {
  const i = n++;
  const scene = await app.database.prisma.$transaction(async (tx): Promise<Scene> => {
    const user = async (login: string, orgRole: string, extra: { sa?: boolean; admin?: boolean } = {}) => {
      const created = await tx.user.create({
        data: {
          orgId: 1,
          login,
          email: `${login}@example.test`,
          name: login,
          passwordHash: extra.sa ? null : passwordHash,
          isServiceAccount: extra.sa === true,
          isServiceAdmin: extra.admin === true,
          orgs: { create: { orgId: 1, role: orgRole } },
        },
        select: { id: true },
      });
      return created.id;
    };
    const role = async (uid: string, perms: PermissionPair[]) => {
      const created = await tx.role.create({
        data: { uid, orgId: 1, name: uid, permissions: { create: perms.map((perm) => ({ action: perm.action, scope: perm.scope })) } },
        select: { id: true },
      });
      return created.id;
    };
    const assign = (userId: number, roleId: number, expiresAt: Date | null = null) =>
      tx.userRole.create({ data: { orgId: 1, userId, roleId, expiresAt } });

    const login = `pc-${i}`;
    const callerId = await user(login, d.callerRole);
    const T = Date.now() + 3_600_000;
    await assign(callerId, await role(`pc-held-${i}`, d.held), d.heldEnds ? new Date(T) : null);
    const expiresAt = { none: undefined, before: new Date(T - 60_000).toISOString(), after: new Date(T + 60_000).toISOString() }[
      d.grantEnd
    ];
    const roleUid = `pc-payload-${i}`;
    const roleId = await role(roleUid, d.payload);
    let target = 0;
    let team = 0;
    let account = 0;
    if (d.path === 'assign' || d.path === 'team') target = await user(`pt-${i}`, 'None');
    if (d.path === 'orgRole') target = await user(`pt-${i}`, 'None');
    if (d.path === 'credential') {
      target = await user(`pt-${i}`, d.targetRole, { admin: d.targetServiceAdmin });
      await assign(target, roleId);
    }
    if (d.path === 'team') {
      const created = await tx.team.create({
        data: { orgId: 1, name: `ptm-${i}`, roles: { create: { orgId: 1, roleId } } },
        select: { id: true },
      });
      team = created.id;
    }
    if (d.path === 'saRole') account = await user(`sa-1-pc-${i}`, 'None', { sa: true });
    if (d.path === 'token') {
      account = await user(`sa-1-pc-${i}`, d.targetRole, { sa: true });
      await assign(account, roleId);
    }
    return { i, login, callerId, roleId, roleUid, target, team, account, ...(expiresAt && { expiresAt }) };
  });
  app.services.access.invalidate();
  return scene;
}

/** Runs `d` through the services as the caller; ACCESS_DENIED is a refusal, any other error fails the test. */
async function viaService(d: Draw, s: Scene): Promise<Outcome> {
  const caller = userPrincipal({ id: s.callerId, login: s.login }, d.callerRole);
  const sv = app.services;
  const calls: Record<PathKind, () => Promise<unknown>> = {
    assign: () => sv.userRoles.add(caller, s.target, { roleUid: s.roleUid, expiresAt: s.expiresAt }),
    team: () => sv.teams.addMember(caller, s.team, { userId: s.target }),
    orgRole: () => sv.orgMembers.updateUserRole(caller, { orgId: 1, userId: s.target, role: d.targetRole }),
    saRole: () => sv.serviceAccounts.update(caller, s.account, { role: d.targetRole }),
    token: () => sv.serviceAccountTokens.create(caller, s.account, { name: `tok-${s.i}` }),
    apiKey: () => sv.apiKeys.create(caller, { name: `key-${s.i}`, role: d.targetRole }),
    credential: () =>
      ({
        disable: () => sv.userAdmin.disable(caller, s.target),
        profile: () => sv.users.updateProfile(caller, s.target, { email: `moved-${s.i}@example.test` }),
        logout: () => sv.sessions.logoutUser(caller, s.target),
        password: () => sv.userAdmin.setPassword(caller, s.target, { password: `new-${s.i}` }),
      })[d.op](),
  };
  try {
    await calls[d.path]();
    return 'accepted';
  } catch (error) {
    if (isDomainError(error) && error.code === 'ACCESS_DENIED') return 'refused';
    throw error;
  }
}

/** Runs `d` through REST or GraphQL with the caller's Basic credentials. */
async function viaDoor(d: Draw, s: Scene, door: 'rest' | 'graphql'): Promise<Outcome> {
  const auth = { login: s.login, password: SUBJECT_PASSWORD };
  const r = (method: string, path: string, json?: unknown) => rest(app, method, path, { auth, ...(json !== undefined && { json }) });
  const g = (query: string, variables: Record<string, unknown>) => gql(app, query, variables, { auth });
  const t = s.target;
  const restCalls: Record<PathKind, () => Promise<Answer>> = {
    assign: () => r('POST', `/api/access-control/users/${t}/roles`, { roleUid: s.roleUid, expiresAt: s.expiresAt }),
    team: () => r('POST', `/api/teams/${s.team}/members`, { userId: t }),
    orgRole: () => r('PATCH', `/api/org/users/${t}`, { role: d.targetRole }),
    saRole: () => r('PATCH', `/api/serviceaccounts/${s.account}`, { role: d.targetRole }),
    token: () => r('POST', `/api/serviceaccounts/${s.account}/tokens`, { name: `tok-${s.i}` }),
    apiKey: () => r('POST', '/api/auth/keys', { name: `key-${s.i}`, role: d.targetRole }),
    credential: () =>
      ({
        disable: () => r('POST', `/api/admin/users/${t}/disable`),
        profile: () => r('PUT', `/api/users/${t}`, { email: `moved-${s.i}@example.test` }),
        logout: () => r('POST', `/api/admin/users/${t}/logout`),
        password: () => r('PUT', `/api/admin/users/${t}/password`, { password: `new-${s.i}` }),
      })[d.op](),
  };
  const gqlCalls: Record<PathKind, () => Promise<Answer>> = {
    assign: () =>
      g('mutation($u: Int!, $r: String!, $e: DateTime) { addUserRole(userId: $u, roleUid: $r, expiresAt: $e) { message } }', {
        u: t,
        r: s.roleUid,
        e: s.expiresAt ?? null,
      }),
    team: () => g('mutation($t: Int!, $u: Int!) { addTeamMember(teamId: $t, userId: $u) { id } }', { t: s.team, u: t }),
    orgRole: () =>
      g('mutation($u: Int!, $r: OrgRole!) { updateOrgUserRole(orgId: 1, userId: $u, role: $r) { role } }', { u: t, r: d.targetRole }),
    saRole: () =>
      g('mutation($a: Int!, $r: OrgRole!) { updateServiceAccount(id: $a, input: { role: $r }) { id } }', { a: s.account, r: d.targetRole }),
    token: () =>
      g('mutation($a: Int!, $n: String!) { createServiceAccountToken(serviceAccountId: $a, name: $n) { id } }', {
        a: s.account,
        n: `tok-${s.i}`,
      }),
    apiKey: () =>
      g('mutation($n: String!, $r: OrgRole!) { createApiKey(input: { name: $n, role: $r }) { id } }', { n: `key-${s.i}`, r: d.targetRole }),
    credential: () =>
      ({
        disable: () => g('mutation($u: Int!) { disableUser(id: $u) { message } }', { u: t }),
        profile: () =>
          g('mutation($u: Int!, $e: String!) { updateUser(id: $u, input: { email: $e }) { id } }', {
            u: t,
            e: `moved-${s.i}@example.test`,
          }),
        logout: () => r('POST', `/api/admin/users/${t}/logout`), // no GraphQL twin
        password: () =>
          g('mutation($u: Int!, $p: String!) { setUserPassword(id: $u, password: $p) { message } }', { u: t, p: `new-${s.i}` }),
      })[d.op](),
  };
  const out = await (door === 'rest' ? restCalls : gqlCalls)[d.path]();
  if (out.status === 200 && out.code === undefined) return 'accepted';
  if (out.status === 403 && out.code === 'ACCESS_DENIED') return 'refused';
  throw new Error(`unexpected ${out.status} ${out.code}: ${JSON.stringify(out.body)}`);
}

/** Whether the grant `d` asked for exists now, read straight from the database. */
async function written(d: Draw, s: Scene, passwordBefore: string | null): Promise<boolean> {
  const db = app.database.prisma;
  const role = async (userId: number) => (await db.orgUser.findUniqueOrThrow({ where: { orgId_userId: { orgId: 1, userId } } })).role;
  switch (d.path) {
    case 'assign':
      return (await db.userRole.count({ where: { userId: s.target, roleId: s.roleId } })) === 1;
    case 'team':
      return (await db.teamMember.count({ where: { teamId: s.team, userId: s.target } })) === 1;
    case 'orgRole':
      return (await role(s.target)) === d.targetRole;
    case 'saRole':
      return (await role(s.account)) === d.targetRole;
    case 'token':
      return (await db.apiKey.count({ where: { serviceAccountId: s.account } })) === 1;
    case 'apiKey':
      return (await db.apiKey.count({ where: { orgId: 1, name: `key-${s.i}` } })) === 1;
    case 'credential': {
      const u = await db.user.findUniqueOrThrow({ where: { id: s.target }, include: { _count: { select: { sessions: true } } } });
      if (d.op === 'disable') return u.isDisabled;
      if (d.op === 'profile') return u.email === `moved-${s.i}@example.test`;
      if (d.op === 'logout') return u._count.sessions === 0;
      return u.passwordHash !== passwordBefore;
    }
  }
}

beforeAll(async () => {
  app = await createTestApp();
  passwordHash = await hashPassword(SUBJECT_PASSWORD);
});

afterAll(async () => {
  await app.close();
});

describe('delegation property: every path to a permission', () => {
  // 420 draws of about ten statements each through Prisma: seconds alone, far more on a shared
  // machine running the whole suite; the default 30 s would fail a correct run.
  it(`${RUNS} random (caller, path, grant) draws: accepted exactly when the oracle says, and written exactly then`, {
    timeout: 180_000,
  }, async () => {
    const tally = { accepted: 0, refused: 0, rest: 0, graphql: 0, paths: new Map<string, { accepted: number; refused: number }>() };
    await fc.assert(
      fc.asyncProperty(draws, async (d) => {
        const s = await writeScene(d);
        if (d.path === 'credential' && d.op === 'logout') {
          await app.services.sessions.start(s.target, 'password', { clientIp: '127.0.0.1', userAgent: 'property' });
        }
        const passwordBefore = d.path === 'credential' ? passwordHash : null;
        const door: Door = s.i % 10 === 3 ? 'rest' : s.i % 10 === 7 ? 'graphql' : 'service';
        const got = door === 'service' ? await viaService(d, s) : await viaDoor(d, s, door);
        const want = expected(d, s);
        expect({ draw: d, door, got }).toEqual({ draw: d, door, got: want });
        expect(await written(d, s, passwordBefore)).toBe(want === 'accepted');
        tally[want] += 1;
        if (door !== 'service') tally[door] += 1;
        const byPath = tally.paths.get(d.path) ?? { accepted: 0, refused: 0 };
        byPath[want] += 1;
        tally.paths.set(d.path, byPath);
      }),
      { numRuns: RUNS, seed: SEED, ...(PATH !== undefined && { path: PATH }) },
    );
    // Every path must be exercised on both sides, or the property proves little about it.
    for (const [path, t] of tally.paths) {
      expect({ path, acceptedSome: t.accepted > 0, refusedSome: t.refused > 0 }).toEqual({ path, acceptedSome: true, refusedSome: true });
    }
    expect(tally.paths.size).toBe(7);
    expect(tally.rest).toBeGreaterThan(RUNS / 20);
    expect(tally.graphql).toBeGreaterThan(RUNS / 20);
    const paths = [...tally.paths].map(([k, v]) => `${k} ${v.accepted}/${v.accepted + v.refused}`).join(', ');
    console.info(
      `delegation property: ${tally.accepted} accepted, ${tally.refused} refused (${paths}); ${tally.rest} REST, ${tally.graphql} GraphQL`,
    );
  });

  it('the oracle itself follows the documented examples', () => {
    expect(scopeMatches('users:id:*', 'users:id:7')).toBe(true);
    expect(scopeMatches('users:id:*', 'users:*')).toBe(false);
    expect(scopeMatches('', 'users:id:7')).toBe(false);
    expect(covers(BASIC.Admin, BASIC.Viewer)).toBe(true);
    expect(covers(BASIC.Editor, BASIC.Admin)).toBe(false);
    const ids = { target: 5, team: 6, account: 7 };
    const base: Draw = {
      path: 'team',
      callerRole: 'Admin',
      held: [],
      targetRole: 'Viewer',
      payload: [],
      targetServiceAdmin: false,
      op: 'disable',
      heldEnds: false,
      grantEnd: 'none',
    };
    expect(expected({ ...base, payload: [{ action: 'users:write', scope: 'global.users:*' }] }, ids)).toBe('refused');
    expect(expected({ ...base, payload: [{ action: 'teams:read', scope: 'teams:*' }] }, ids)).toBe('accepted');
    expect(expected({ ...base, path: 'apiKey', callerRole: 'Editor', targetRole: 'Admin' }, ids)).toBe('refused');
    const escalator = [{ action: 'users.roles:add', scope: 'permissions:type:*' }];
    expect(expected({ ...base, held: escalator, payload: [{ action: 'users:write', scope: 'global.users:*' }] }, ids)).toBe('accepted');
    const writer = {
      ...base,
      path: 'credential' as const,
      callerRole: 'Editor' as const,
      held: [{ action: 'users:disable', scope: 'global.users:*' }],
    };
    expect(expected(writer, ids)).toBe('accepted');
    expect(expected({ ...writer, targetServiceAdmin: true }, ids)).toBe('refused');
    // Delegation in time: a hold until T grants an assignment ending by T, nothing longer.
    const temporary = {
      ...base,
      path: 'assign' as const,
      heldEnds: true,
      held: [
        { action: 'users.roles:add', scope: 'permissions:type:delegate' },
        { action: 'x:read', scope: 'x:*' },
      ],
      payload: [{ action: 'x:read', scope: 'x:id:1' }],
    };
    expect(expected({ ...temporary, grantEnd: 'before' }, ids)).toBe('accepted');
    expect(expected({ ...temporary, grantEnd: 'after' }, ids)).toBe('refused');
    expect(expected({ ...temporary, grantEnd: 'none' }, ids)).toBe('refused');
  });
});
