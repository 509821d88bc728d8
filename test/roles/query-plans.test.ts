/**
 * The hot queries of role membership, permission listing and role listing use
 * indexes, so their cost follows the caller's own rows, never the size of the assignment tables
 * (1M assignments cost the same as 1k: bench/scale.ts). The statements are the ones the app
 * really sends (captured from requests: a user's own permissions through direct, team and basic
 * roles, another user's, the viewer's roles, the role listing and its delegatable filter), and
 * each is explained by the database: SQLite's `EXPLAIN QUERY PLAN` must show no full `SCAN` of
 * UserRole, TeamRole, TeamMember, BasicRoleGrant or Permission. On PostgreSQL (TEST_DATABASE=
 * postgres) the same statements are explained with sequential scans disabled, so a plan still
 * holding a `Seq Scan` on one of them has no index to use.
 */
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { onPostgres } from '../support/postgres.js';
import { type Actor, addTeamMember, assignTeamRole, assignUserRole, createRole, createTeam, createUser } from '../support/subjects.js';

/** The tables that grow with assignments and permissions: never read whole on a hot path. */
const ASSIGNMENT_TABLES = ['UserRole', 'TeamRole', 'TeamMember', 'BasicRoleGrant', 'Permission'];

let app: TestApp;
let member: Actor;

beforeAll(async () => {
  app = await createTestApp();
  member = await createUser(app, 'plans-member', { orgRole: 'Viewer' });
  const team = await createTeam(app, 'plans-team', { members: [member.id] });
  await addTeamMember(app, team.id, (await createUser(app, 'plans-other')).id);
  await createRole(app, 'plans_direct', [{ action: 'teams:read', scope: 'teams:*' }]);
  await createRole(app, 'plans_team', [{ action: 'users:read', scope: 'global.users:*' }]);
  await assignUserRole(app, member.id, 'plans_direct');
  await assignTeamRole(app, team.id, 'plans_team');
});
afterAll(() => app.close());

/** The SELECTs the app sends for `requests`, each once, with the role reads first loaded cold. */
async function hotStatements(): Promise<string[]> {
  app.services.access.invalidate(); // cold: permission indexes and role listings are read again
  app.resetQueries();
  const ok = (res: { status: number }) => expect(res.status).toBe(200);
  ok(await app.request('/api/access-control/user/permissions', { auth: member }));
  ok(await app.request(`/api/access-control/users/${member.id}/permissions`));
  ok(await app.request('/api/access-control/roles'));
  ok(await app.request('/api/access-control/roles?delegatable=true&perpage=50'));
  ok(await app.request(`/api/access-control/users/${member.id}/roles`));
  const viewer = await app.graphql('{ viewer { roles { name } permissions { action } } }', {}, { auth: member });
  expect(viewer.body.errors).toBeUndefined();
  return [...new Set(app.queries.filter((sql) => /^\s*SELECT/i.test(sql)))];
}

/** The table behind each name a plan may use for it in `sql`: its own name or its alias (`AS t1`). */
function tableNames(sql: string): Map<string, string> {
  const names = new Map<string, string>();
  for (const m of sql.matchAll(/[`"](?:main|public)[`"]\.[`"](\w+)[`"](?: AS [`"](\w+)[`"])?/g)) {
    names.set(m[1] as string, m[1] as string);
    if (m[2]) names.set(m[2], m[1] as string);
  }
  return names;
}

/** Plan lines that read a whole assignment table (`scan` captures the name the plan uses), by statement. */
function fullScans(plans: Map<string, string[]>, scan: RegExp): string[] {
  const found: string[] = [];
  for (const [sql, lines] of plans) {
    const names = tableNames(sql);
    for (const line of lines) {
      const name = scan.exec(line)?.[1]?.replace(/^(main|public)\./, '');
      const table = name === undefined ? undefined : (names.get(name) ?? name);
      if (table && ASSIGNMENT_TABLES.includes(table)) found.push(`${line}\n  in ${sql}`);
    }
  }
  return found;
}

describe.skipIf(onPostgres)('SQLite EXPLAIN QUERY PLAN of the hot queries', () => {
  it('reads no assignment table whole', async () => {
    const statements = await hotStatements();
    // Prisma's statements quote with backticks, the raw ones (kernel/held-roles.ts) with double quotes.
    const reads = statements.filter((sql) => ASSIGNMENT_TABLES.some((t) => sql.includes(`\`${t}\``) || sql.includes(`"${t}"`)));
    expect(reads.length).toBeGreaterThanOrEqual(4); // held role ids and their permissions (raw), role permissions, assignments
    const db = new BetterSqlite3(app.config.databaseUrl.replace(/^file:/, ''), { readonly: true });
    try {
      const plans = new Map<string, string[]>();
      for (const sql of reads) {
        const params = Array.from(sql.matchAll(/\?/g), () => null);
        const rows = db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[];
        plans.set(
          sql,
          rows.map((r) => r.detail),
        );
      }
      // "SCAN t" (or "SCAN t USING [COVERING] INDEX": every row of an index) reads the table whole.
      expect(fullScans(plans, /^SCAN (\S+)/)).toEqual([]);
      // The detector sees a whole read through an alias too (a search by action has no index).
      const unindexed = 'SELECT `t9`.`id` FROM `main`.`Permission` AS `t9` WHERE `t9`.`action` LIKE ?';
      const lines = (db.prepare(`EXPLAIN QUERY PLAN ${unindexed}`).all(null) as { detail: string }[]).map((r) => r.detail);
      expect(fullScans(new Map([[unindexed, lines]]), /^SCAN (\S+)/)).toHaveLength(1);
      // The plans do use the indexes: each read searches one.
      for (const [sql, lines] of plans)
        expect(
          lines.some((l) => /^SEARCH .* USING/.test(l)),
          sql,
        ).toBe(true);
    } finally {
      db.close();
    }
  });
});

describe.skipIf(onPostgres)('SQLite plan of the membership query', () => {
  // The roles a principal holds are found from its assignments (kernel/held-roles.ts heldRoleIds),
  // then read by id: no Role row beyond its own is read (a scan would be SCAN Role with an
  // EXISTS probe per source, 33 ms at 10,000 roles against 0.28 ms at 100).
  it('reads no Role row beyond the ones the principal holds', async () => {
    app.services.access.invalidate();
    app.resetQueries();
    const isRoleRead = (sql: string) => /^\s*SELECT/i.test(sql) && sql.includes('`main`.`Role`');
    expect((await app.request('/api/access-control/user/permissions', { auth: member })).status).toBe(200);
    // A permission listing reads no Role row at all: role ids and permissions come from the
    // assignment side (held-roles.ts); the rows are read when asked for, as `viewer { roles }` does.
    expect(app.queries.filter(isRoleRead)).toEqual([]);
    const viewer = await app.graphql('{ viewer { roles { name } } }', {}, { auth: member });
    expect(viewer.body.errors).toBeUndefined();
    const roleReads = [...new Set(app.queries.filter(isRoleRead))];
    expect(roleReads.length).toBeGreaterThanOrEqual(1);
    const db = new BetterSqlite3(app.config.databaseUrl.replace(/^file:/, ''), { readonly: true });
    try {
      const plans = new Map<string, string[]>();
      for (const sql of roleReads) {
        const params = Array.from(sql.matchAll(/\?/g), () => null);
        plans.set(
          sql,
          (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((r) => r.detail),
        );
      }
      const roleScans = [...plans].flatMap(([sql, lines]) => {
        const names = tableNames(sql);
        return lines
          .filter((l) => {
            const name = /^SCAN (\S+)/.exec(l)?.[1]?.replace(/^(main|public)\./, '');
            return name !== undefined && (names.get(name) ?? name) === 'Role';
          })
          .map((l) => `${l}\n  in ${sql}`);
      });
      expect(roleScans).toEqual([]);
    } finally {
      db.close();
    }
  });
});

describe.skipIf(!onPostgres)('PostgreSQL EXPLAIN of the hot queries', () => {
  it('has an index for every assignment table it reads (no Seq Scan when they are disabled)', async () => {
    const statements = await hotStatements();
    const reads = statements.filter((sql) => ASSIGNMENT_TABLES.some((t) => sql.includes(`"${t}"`)));
    expect(reads.length).toBeGreaterThanOrEqual(3);
    const client = new pg.Client({ connectionString: app.config.databaseUrl });
    await client.connect();
    try {
      await client.query('SET enable_seqscan = off');
      const plans = new Map<string, string[]>();
      for (const sql of reads) {
        // Parameters as untyped unknowns: PostgreSQL infers their types, as for the prepared statement.
        const count = Math.max(0, ...Array.from(sql.matchAll(/\$(\d+)/g), (m) => Number(m[1])));
        await client.query(`PREPARE hot(${Array.from({ length: count }, () => 'unknown').join(',')}) AS ${sql}`);
        const args = Array.from({ length: count }, () => 'NULL').join(',');
        const result = await client.query(`EXPLAIN EXECUTE hot${count > 0 ? `(${args})` : ''}`);
        plans.set(
          sql,
          result.rows.map((r: Record<string, string>) => String(r['QUERY PLAN'])),
        );
        await client.query('DEALLOCATE hot');
      }
      // "Seq Scan on <table> [<alias>]": the alias, when there is one, names it in the statement.
      const seq = (line: string) => /Seq Scan on "?(\w+)"?(?: "?(\w+)"?)?/.exec(line);
      const named = new Map([...plans].map(([sql, lines]) => [sql, lines.map((l) => (seq(l) ? `SCAN ${seq(l)?.[1]}` : l))]));
      expect(fullScans(named, /^SCAN (\S+)/)).toEqual([]);
    } finally {
      await client.end();
    }
  });
});
