/**
 * No escalation path through role assignment, and escalation rights,
 * both ways: for many random pairs (caller permissions, role permissions) over a small
 * alphabet of actions and scopes (wildcards, "" and the escalate-covering scopes included), a
 * caller holding those permissions plus users.roles:add and users.roles:delete on
 * permissions:type:delegate may assign (and remove) the role exactly when an INDEPENDENT oracle
 * says it is exempt (it holds the action on a scope covering permissions:type:escalate: that
 * scope, permissions:type:*, permissions:* or *) or its permissions cover every permission of
 * the role. Exempt callers always pass; delegate-only callers pass exactly when covered.
 *
 * The oracle is written here from upstream-behaviour.md ("Scope match", "Delegation"), naively,
 * pair by pair; it shares no code with PermissionIndex. The pairs come from fast-check, which
 * shrinks a failing pair to a smallest one. Each pair gets its own caller and role, written with
 * raw SQL past Prisma (which costs milliseconds per row here): on SQLite prepared statements in one
 * transaction, on PostgreSQL one statement on a connection of the test's own (every write a round
 * trip to the server). Adds: 300 pairs, through the assignment
 * service, every 30th through REST with the caller's own credentials instead. Removals: 100 more
 * pairs, the same way.
 *
 * Runs are reproducible: the seed is fixed (SEED below). To try other pairs, or to replay a
 * failure fast-check reported ("seed: ..., path: ..."), run with PROPERTY_SEED=<seed>
 * (and PROPERTY_PATH=<path> to jump straight to the shrunk counterexample).
 */
import BetterSqlite3 from 'better-sqlite3';
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PermissionPair } from '../../src/kernel/catalogue.js';
import { isDomainError } from '../../src/kernel/errors.js';
import { hashPassword } from '../../src/platform/passwords.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { rest } from '../support/requests.js';
import { type Actor, createUser, p, SUBJECT_PASSWORD, userPrincipal } from '../support/subjects.js';

const ADD_RUNS = 300;
const REMOVE_RUNS = 100;
const REST_EVERY = 30;
/** Fixed unless PROPERTY_SEED is set, so every run checks the same pairs and a failure replays. */
const SEED = process.env.PROPERTY_SEED ? Number(process.env.PROPERTY_SEED) : 0xc0ffee;
const PATH = process.env.PROPERTY_PATH;

const ACTIONS = ['a:read', 'a:write', 'b:read', 'users.roles:add', 'users.roles:delete'];
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
  'permissions:type:escalate',
  'permissions:*',
];
const ESCALATE = 'permissions:type:escalate';
const DELEGATE = [p('users.roles:add', 'permissions:type:delegate'), p('users.roles:delete', 'permissions:type:delegate')];

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

/** Escalation: the role-management action held on a scope covering permissions:type:escalate. */
function oracleExempt(held: PermissionPair[], action: string): boolean {
  return held.some((h) => h.action === action && scopeMatches(h.scope, ESCALATE));
}

// ---- the generator ------------------------------------------------------------------------------

const permission = (actions: readonly string[]) => fc.record({ action: fc.constantFrom(...actions), scope: fc.constantFrom(...SCOPES) });

/** Caller permissions (0..5) and role permissions (0..3), about half of the latter on an action the caller holds. */
const pairs = fc.array(permission(ACTIONS), { maxLength: 5 }).chain((held) =>
  fc.record({
    held: fc.constant(held),
    role: fc.array(held.length === 0 ? permission(ACTIONS) : fc.oneof(permission(held.map((h) => h.action)), permission(ACTIONS)), {
      maxLength: 3,
    }),
  }),
);

/** fast-check's parameters for `numRuns` runs: the fixed seed, and the replay path when given. */
function params(numRuns: number): fc.Parameters<[{ held: PermissionPair[]; role: PermissionPair[] }]> {
  return { numRuns, seed: SEED, ...(PATH !== undefined && { path: PATH }) };
}

// ---- the test ---------------------------------------------------------------------------------------

/** One generated pair as written: its own caller (holding `held` + DELEGATE) and its own role to assign. */
interface Case {
  i: number;
  callerId: number;
  login: string;
  roleId: number;
  uid: string;
}

type Outcome = 'accepted' | 'refused';
type Tally = { accepted: number; refused: number; exempt: number; rest: number };

let app: TestApp;
let target: Actor;
let raw: BetterSqlite3.Database | undefined;
let rawPg: pg.Client | undefined;
let passwordHash: string;
let written = 0;

/**
 * Writes one pair in one raw SQLite transaction: a caller (org role None: no basic role, so it
 * holds exactly its custom role), the caller's custom role assigned to it, the role to assign,
 * and (`assigned`) that role already assigned to the target.
 */
async function writeCase(held: PermissionPair[], role: PermissionPair[], assigned = false): Promise<Case> {
  const c = raw ? writeRaw(raw, held, role, assigned) : await writePg(rawPg as pg.Client, held, role, assigned);
  app.services.access.invalidate();
  return c;
}

/** The case's rows as raw SQLite statements in one transaction. */
function writeRaw(raw: BetterSqlite3.Database, held: PermissionPair[], role: PermissionPair[], assigned: boolean): Case {
  const i = written++;
  const now = new Date().toISOString().replace('Z', '+00:00'); // the adapter's DATETIME text
  const write = raw.transaction((): Case => {
    const login = `caller-${i}`;
    const callerId = Number(
      raw
        .prepare('INSERT INTO "User" (orgId, login, email, name, passwordHash, updated) VALUES (1, ?, ?, ?, ?, ?)')
        .run(login, `${login}@example.test`, login, passwordHash, now).lastInsertRowid,
    );
    raw.prepare('INSERT INTO "OrgUser" (orgId, userId, role, updated) VALUES (1, ?, \'None\', ?)').run(callerId, now);
    const insertRole = raw.prepare('INSERT INTO "Role" (uid, orgId, name, updated) VALUES (?, 1, ?, ?)');
    const insertPermission = raw.prepare('INSERT INTO "Permission" (roleId, action, scope, updated) VALUES (?, ?, ?, ?)');
    const insertAssignment = raw.prepare('INSERT INTO "UserRole" (orgId, userId, roleId) VALUES (1, ?, ?)');
    const heldRoleId = Number(insertRole.run(`held-${i}`, `held ${i}`, now).lastInsertRowid);
    for (const perm of [...held, ...DELEGATE]) insertPermission.run(heldRoleId, perm.action, perm.scope, now);
    insertAssignment.run(callerId, heldRoleId);
    const roleId = Number(insertRole.run(`prop-${i}`, `prop ${i}`, now).lastInsertRowid);
    for (const perm of role) insertPermission.run(roleId, perm.action, perm.scope, now);
    if (assigned) insertAssignment.run(target.id, roleId);
    return { i, callerId, login, roleId, uid: `prop-${i}` };
  });
  return write();
}

/**
 * The same rows on PostgreSQL in one statement (one round trip, one implicit transaction): each
 * INSERT a data-modifying CTE, the permissions unnested from two arrays.
 */
async function writePg(client: pg.Client, held: PermissionPair[], role: PermissionPair[], assigned: boolean): Promise<Case> {
  const i = written++;
  const login = `caller-${i}`;
  const heldPermissions = [...held, ...DELEGATE];
  const result = await client.query<{ callerId: number; roleId: number }>(
    `WITH caller AS (
       INSERT INTO "User" ("orgId", "login", "email", "name", "passwordHash", "updated") VALUES (1, $1, $2, $1, $3, now()) RETURNING "id"
     ), membership AS (
       INSERT INTO "OrgUser" ("orgId", "userId", "role", "updated") SELECT 1, "id", 'None', now() FROM caller
     ), held_role AS (
       INSERT INTO "Role" ("uid", "orgId", "name", "updated") VALUES ($4, 1, $5, now()) RETURNING "id"
     ), held_permissions AS (
       INSERT INTO "Permission" ("roleId", "action", "scope", "updated")
       SELECT held_role."id", p."action", p."scope", now() FROM held_role, unnest($6::text[], $7::text[]) AS p("action", "scope")
     ), made AS (
       INSERT INTO "Role" ("uid", "orgId", "name", "updated") VALUES ($8, 1, $9, now()) RETURNING "id"
     ), made_permissions AS (
       INSERT INTO "Permission" ("roleId", "action", "scope", "updated")
       SELECT made."id", p."action", p."scope", now() FROM made, unnest($10::text[], $11::text[]) AS p("action", "scope")
     ), assignments AS (
       INSERT INTO "UserRole" ("orgId", "userId", "roleId")
       SELECT 1, caller."id", held_role."id" FROM caller, held_role
       UNION ALL SELECT 1, $12::int, made."id" FROM made WHERE $13::boolean
     )
     SELECT caller."id" AS "callerId", made."id" AS "roleId" FROM caller, made`,
    [
      login,
      `${login}@example.test`,
      passwordHash,
      `held-${i}`,
      `held ${i}`,
      heldPermissions.map((perm) => perm.action),
      heldPermissions.map((perm) => perm.scope),
      `prop-${i}`,
      `prop ${i}`,
      role.map((perm) => perm.action),
      role.map((perm) => perm.scope),
      target.id,
      assigned,
    ],
  );
  const row = result.rows[0] as { callerId: number; roleId: number };
  return { i, callerId: row.callerId, login, roleId: row.roleId, uid: `prop-${i}` };
}

/** The oracle's answer for `action`, counting exempt callers in `tally`. */
function expected(held: PermissionPair[], role: PermissionPair[], action: string, tally: Tally): Outcome {
  const exempt = oracleExempt(held, action);
  const want = exempt || oracleCovers([...held, ...DELEGATE], role) ? 'accepted' : 'refused';
  tally[want] += 1;
  if (exempt) tally.exempt += 1;
  return want;
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

/** Is the generated role of `c` assigned to the target now? */
async function assigned(c: Case): Promise<boolean> {
  return (await app.database.prisma.userRole.count({ where: { userId: target.id, orgId: 1, roleId: c.roleId } })) === 1;
}

beforeAll(async () => {
  app = await createTestApp();
  target = await createUser(app, 'target');
  passwordHash = await hashPassword(SUBJECT_PASSWORD);
  if (app.database.provider === 'sqlite') raw = new BetterSqlite3(app.database.path, { timeout: 5000 });
  else {
    rawPg = new pg.Client({ connectionString: app.config.databaseUrl });
    await rawPg.connect();
  }
});

afterAll(async () => {
  raw?.close();
  await rawPg?.end();
  await app.close();
});

describe('delegation property: no escalation through role assignment', () => {
  // Hundreds of draws, each several writes and requests: seconds alone, far more on a shared
  // machine running the whole suite (PostgreSQL: a round trip per statement); 30 s failed correct runs.
  it(`${ADD_RUNS} random (caller permissions, role permissions) pairs: assignment accepted exactly when covered`, {
    timeout: 180_000,
  }, async () => {
    const tally: Tally = { accepted: 0, refused: 0, exempt: 0, rest: 0 };
    await fc.assert(
      fc.asyncProperty(pairs, async ({ held, role }) => {
        const c = await writeCase(held, role);
        const caller = userPrincipal({ id: c.callerId, login: c.login }, 'None');
        const throughRest = c.i % REST_EVERY === 0;
        const got = throughRest
          ? await viaRest(c, 'POST')
          : await viaCore(() => app.services.userRoles.add(caller, target.id, { roleUid: c.uid }));
        const want = expected(held, role, 'users.roles:add', tally);
        if (throughRest) tally.rest += 1;
        expect({ held, role, got }).toEqual({ held, role, got: want });
        // What was written agrees too: the role is assigned exactly when accepted.
        expect(await assigned(c)).toBe(want === 'accepted');
      }),
      params(ADD_RUNS),
    );
    // The generator must exercise both sides, or the property proves little.
    expect(tally.accepted).toBeGreaterThan(ADD_RUNS / 5);
    expect(tally.refused).toBeGreaterThan(ADD_RUNS / 5);
    expect(tally.exempt).toBeGreaterThan(ADD_RUNS / 20);
    console.info(
      `delegation property (add): ${tally.accepted} accepted (${tally.exempt} exempt), ${tally.refused} refused, ${tally.rest} through REST`,
    );
  });

  it(`${REMOVE_RUNS} more pairs: removal accepted exactly when covered`, { timeout: 180_000 }, async () => {
    const tally: Tally = { accepted: 0, refused: 0, exempt: 0, rest: 0 };
    await fc.assert(
      fc.asyncProperty(pairs, async ({ held, role }) => {
        const c = await writeCase(held, role, true);
        const caller = userPrincipal({ id: c.callerId, login: c.login }, 'None');
        const got =
          c.i % REST_EVERY === 0
            ? await viaRest(c, 'DELETE')
            : await viaCore(() => app.services.userRoles.remove(caller, target.id, c.uid, {}));
        const want = expected(held, role, 'users.roles:delete', tally);
        expect({ held, role, got }).toEqual({ held, role, got: want });
        expect(await assigned(c)).toBe(want === 'refused');
      }),
      params(REMOVE_RUNS),
    );
    expect(tally.accepted).toBeGreaterThan(REMOVE_RUNS / 5);
    expect(tally.refused).toBeGreaterThan(REMOVE_RUNS / 5);
    expect(tally.exempt).toBeGreaterThan(0);
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
    for (const scope of ['permissions:type:escalate', 'permissions:type:*', 'permissions:*', '*']) {
      expect(oracleExempt([p('users.roles:add', scope)], 'users.roles:add')).toBe(true);
    }
    expect(oracleExempt([p('users.roles:add', 'permissions:type:delegate')], 'users.roles:add')).toBe(false);
    expect(oracleExempt([p('users.roles:delete', '*')], 'users.roles:add')).toBe(false);
  });
});
