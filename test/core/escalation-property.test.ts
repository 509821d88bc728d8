/**
 * No escalation path through role assignment (issue #3 item 2): for many random pairs (caller
 * permissions, role permissions) over a small alphabet of actions and scopes (wildcards and ""
 * included), a caller holding those permissions plus users.roles:add and users.roles:delete on
 * permissions:type:delegate may assign (and remove) the role exactly when an INDEPENDENT oracle
 * says the caller's permissions cover every permission of the role.
 *
 * The oracle is written here from upstream-behaviour.md ("Scope match", "Delegation"), naively,
 * pair by pair; it shares no code with PermissionIndex. Each pair has its own caller and role,
 * written in bulk up front. Adds: every pair, through the core service, every 30th through REST
 * with the caller's own credentials instead. Removals: every 3rd pair, the same way.
 */
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../src/platform/passwords.js';
import { isDomainError } from '../../src/kernel/errors.js';
import type { PermissionPair } from '../../src/kernel/catalogue.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { rest } from '../helpers/doors.js';
import { createUser, p, SUBJECT_PASSWORD, type TestUser, userPrincipal } from '../helpers/subjects.js';

const PAIRS = 300;
const REST_EVERY = 30;
const REMOVE_EVERY = 3;
const SEED = 0xc0ffee;

const ACTIONS = ['a:read', 'a:write', 'b:read', 'users.roles:add'];
const SCOPES = [
  '',
  '*',
  'a:*',
  'a:id:*',
  'a:id:1',
  'a:id:2',
  'a:uid:1',
  'b:*',
  'b:id:1',
  'permissions:type:*',
  'permissions:type:delegate',
];
const DELEGATE = [p('users.roles:add', 'permissions:type:delegate'), p('users.roles:delete', 'permissions:type:delegate')];

/** mulberry32: a small seeded PRNG, so a failure can be replayed. */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// ---- the oracle (upstream-behaviour.md), deliberately naive --------------------------------------

/** Does a held scope match a wanted one? `*`-suffix: prefix match; "" matches nothing; else equality. */
function scopeMatches(held: string, wanted: string): boolean {
  if (held === '') return false;
  if (held.endsWith('*')) return wanted.startsWith(held.slice(0, -1));
  return held === wanted;
}

/** Delegation: each role permission needs a held permission with its action and a matching scope (any scope for a scopeless one). */
function oracleCovers(held: PermissionPair[], role: PermissionPair[]): boolean {
  return role.every((want) => held.some((h) => h.action === want.action && (want.scope === '' || scopeMatches(h.scope, want.scope))));
}

// ---- the test ---------------------------------------------------------------------------------------

/** One generated case: its own caller (holding `held` + DELEGATE) and its own role to assign. */
interface Case {
  i: number;
  held: PermissionPair[];
  role: PermissionPair[];
  callerId: number;
  login: string;
  roleId: number;
  uid: string;
  expected: Outcome;
}

type Outcome = 'accepted' | 'refused';

let app: TestApp;
let target: TestUser;
let cases: Case[];

function pick<T>(rand: () => number, list: readonly T[]): T {
  return list[Math.floor(rand() * list.length)] as T;
}

/** Random caller permissions (0..5) and role permissions (0..3), half of the latter near the caller's. */
function generate(rand: () => number): { held: PermissionPair[]; role: PermissionPair[] } {
  const held = Array.from({ length: Math.floor(rand() * 6) }, () => p(pick(rand, ACTIONS), pick(rand, SCOPES)));
  const role = Array.from({ length: Math.floor(rand() * 4) }, () => {
    const near = held.length > 0 && rand() < 0.5;
    return p(near ? pick(rand, held).action : pick(rand, ACTIONS), pick(rand, SCOPES));
  });
  return { held, role };
}

/**
 * Writes every case up front in one raw SQLite transaction (Prisma's createMany costs milliseconds
 * per row here): per case a caller (org role None: no basic role, so it holds exactly its custom
 * role), the caller's custom role assigned to it, and the role to assign.
 */
async function seedCases(): Promise<Case[]> {
  const rand = prng(SEED);
  const generated = Array.from({ length: PAIRS }, (_, i) => ({ i, ...generate(rand) }));
  const passwordHash = await hashPassword(SUBJECT_PASSWORD);
  const now = new Date().toISOString().replace('Z', '+00:00'); // the adapter's DATETIME text
  const raw = new BetterSqlite3(app.database.path, { timeout: 5000 });
  try {
    const insertUser = raw.prepare('INSERT INTO "User" (orgId, login, email, name, passwordHash, updated) VALUES (1, ?, ?, ?, ?, ?)');
    const insertMember = raw.prepare('INSERT INTO "OrgUser" (orgId, userId, role, updated) VALUES (1, ?, \'None\', ?)');
    const insertRole = raw.prepare('INSERT INTO "Role" (uid, orgId, name, updated) VALUES (?, 1, ?, ?)');
    const insertPermission = raw.prepare('INSERT INTO "Permission" (roleId, action, scope, updated) VALUES (?, ?, ?, ?)');
    const insertAssignment = raw.prepare('INSERT INTO "UserRole" (orgId, userId, roleId) VALUES (1, ?, ?)');
    const write = raw.transaction(() =>
      generated.map(({ i, held, role }): Case => {
        const login = `caller-${i}`;
        const callerId = Number(insertUser.run(login, `${login}@example.test`, login, passwordHash, now).lastInsertRowid);
        insertMember.run(callerId, now);
        const heldRoleId = Number(insertRole.run(`held-${i}`, `held ${i}`, now).lastInsertRowid);
        for (const perm of [...held, ...DELEGATE]) insertPermission.run(heldRoleId, perm.action, perm.scope, now);
        insertAssignment.run(callerId, heldRoleId);
        const roleId = Number(insertRole.run(`prop-${i}`, `prop ${i}`, now).lastInsertRowid);
        for (const perm of role) insertPermission.run(roleId, perm.action, perm.scope, now);
        const expected: Outcome = oracleCovers([...held, ...DELEGATE], role) ? 'accepted' : 'refused';
        return { i, held, role, callerId, login, roleId, uid: `prop-${i}`, expected };
      }),
    );
    return write();
  } finally {
    raw.close();
    app.services.access.invalidate();
  }
}

async function viaCore(fn: () => Promise<unknown>): Promise<Outcome> {
  try {
    await fn();
    return 'accepted';
  } catch (error) {
    if (isDomainError(error) && error.code === 'ACCESS_DENIED') return 'refused';
    throw error;
  }
}

async function viaRest(c: Case, method: 'POST' | 'DELETE'): Promise<Outcome> {
  const path = `/api/access-control/users/${target.id}/roles${method === 'DELETE' ? `/${c.uid}` : ''}`;
  const out = await rest(app, method, path, {
    auth: { login: c.login, password: SUBJECT_PASSWORD },
    ...(method === 'POST' && { json: { roleUid: c.uid } }),
  });
  if (out.status === 200) return 'accepted';
  if (out.status === 403 && out.code === 'ACCESS_DENIED') return 'refused';
  throw new Error(`unexpected ${out.status}: ${JSON.stringify(out.body)}`);
}

/** Ids of the generated roles assigned to the target now. */
async function assignedRoleIds(): Promise<Set<number>> {
  const rows = await app.database.prisma.userRole.findMany({ where: { userId: target.id, orgId: 1 }, select: { roleId: true } });
  return new Set(rows.map((r) => r.roleId));
}

/** Cases whose outcome differs from the oracle's, with what they hold and want (empty when all agree). */
function disagreements(outcomes: Map<Case, Outcome>) {
  return [...outcomes]
    .filter(([c, got]) => got !== c.expected)
    .map(([c, got]) => ({ i: c.i, held: c.held, role: c.role, expected: c.expected, got }));
}

beforeAll(async () => {
  app = await createTestApp();
  target = await createUser(app, 'target');
  cases = await seedCases();
});

afterAll(() => app.close());

describe('delegation property: no escalation through role assignment', () => {
  it(`${PAIRS} random (caller permissions, role permissions) pairs: assignment accepted exactly when covered`, async () => {
    const outcomes = new Map<Case, Outcome>();
    for (const c of cases) {
      const caller = userPrincipal({ id: c.callerId, login: c.login }, 'None');
      outcomes.set(
        c,
        c.i % REST_EVERY === 0
          ? await viaRest(c, 'POST')
          : await viaCore(() => app.services.assignments.addUserRole(caller, target.id, { roleUid: c.uid })),
      );
    }
    expect(disagreements(outcomes)).toEqual([]);
    // What was written agrees too: exactly the accepted roles are assigned.
    expect([...(await assignedRoleIds())].sort()).toEqual(
      cases
        .filter((c) => c.expected === 'accepted')
        .map((c) => c.roleId)
        .sort(),
    );

    const tally = {
      accepted: cases.filter((c) => c.expected === 'accepted').length,
      rest: cases.filter((c) => c.i % REST_EVERY === 0).length,
    };
    // The generator must exercise both sides, or the property proves little.
    expect(tally.accepted).toBeGreaterThan(PAIRS / 5);
    expect(PAIRS - tally.accepted).toBeGreaterThan(PAIRS / 5);
    console.info(`delegation property (add): ${tally.accepted} accepted, ${PAIRS - tally.accepted} refused, ${tally.rest} through REST`);
  });

  it(`one pair in ${REMOVE_EVERY}: removal accepted exactly when covered`, async () => {
    const db = app.database.prisma;
    const present = await assignedRoleIds();
    await db.userRole.createMany({
      data: cases.filter((c) => !present.has(c.roleId)).map((c) => ({ orgId: 1, userId: target.id, roleId: c.roleId })),
    });
    app.services.access.invalidate();
    const sample = cases.filter((c) => c.i % REMOVE_EVERY === 0);
    const outcomes = new Map<Case, Outcome>();
    for (const c of sample) {
      const caller = userPrincipal({ id: c.callerId, login: c.login }, 'None');
      outcomes.set(
        c,
        c.i % REST_EVERY === 0
          ? await viaRest(c, 'DELETE')
          : await viaCore(() => app.services.assignments.removeUserRole(caller, target.id, c.uid, {})),
      );
    }
    expect(disagreements(outcomes)).toEqual([]);
    const removed = new Set(sample.filter((c) => c.expected === 'accepted').map((c) => c.roleId));
    expect([...(await assignedRoleIds())].sort()).toEqual(
      cases
        .filter((c) => !removed.has(c.roleId))
        .map((c) => c.roleId)
        .sort(),
    );
  });

  it('the oracle itself follows the documented examples', () => {
    expect(scopeMatches('*', 'users:id:7')).toBe(true);
    expect(scopeMatches('users:*', 'users:id:7')).toBe(true);
    expect(scopeMatches('users:id:*', 'users:id:7')).toBe(true);
    expect(scopeMatches('users:id:*', 'users:login:x')).toBe(false);
    expect(scopeMatches('users:id:*', 'users:*')).toBe(false);
    expect(scopeMatches('', 'users:id:7')).toBe(false);
    expect(oracleCovers([p('x:y', 'users:*')], [p('x:y', 'users:id:*'), p('x:y')])).toBe(true);
    expect(oracleCovers([p('x:y', 'users:id:*')], [p('x:y', 'users:*')])).toBe(false);
    expect(oracleCovers([], [])).toBe(true);
  });
});
