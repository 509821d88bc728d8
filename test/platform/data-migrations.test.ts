/**
 * Data migrations that give basic roles seeded before a release the defaults that release added
 * (escalation rights, the audit log, the directory REST): applied to basic roles stripped of
 * every permission, they insert only defaults of src/kernel/builtin-roles.ts, each once; applied
 * to roles that already hold those defaults, they insert nothing; a grant an operator removed
 * and then re-adds is not duplicated.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASIC_ROLES } from '../../src/kernel/builtin-roles.js';
import { MIGRATIONS_DIR } from '../../src/platform/migrations.js';
import { readMigrations } from '../../src/platform/schema-engine.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { onPostgres } from '../support/postgres.js';

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(() => app.close());

/** Migrations that insert into Permission: the data migrations of basic-role defaults. */
const dataMigrations = readMigrations(MIGRATIONS_DIR)
  .map((m) => ({ name: m.name, sql: readFileSync(join(MIGRATIONS_DIR, m.name, 'migration.sql'), 'utf8') }))
  .filter((m) => m.sql.includes('INSERT INTO "Permission"'));

type Row = { uid: string; action: string; scope: string };

function basicRolePermissions(raw: BetterSqlite3.Database): Row[] {
  return raw
    .prepare<[], Row>(
      `SELECT r.uid, p.action, p.scope FROM Permission p JOIN Role r ON r.id = p.roleId
       WHERE r.uid LIKE 'basic\\_%' ESCAPE '\\' ORDER BY r.uid, p.action, p.scope`,
    )
    .all();
}

const key = (r: Row) => `${r.uid} ${r.action} ${r.scope}`;

// SQLite-specific: replays SQLite data migrations; PostgreSQL databases start from the current schema and seed.
describe.skipIf(onPostgres)('basic-role data migrations', () => {
  it('exist for each release that added defaults', () => {
    expect(dataMigrations.map((m) => m.name)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/_service_admin_escalate$/),
        expect.stringMatching(/_audit_read$/),
        expect.stringMatching(/_directory_defaults$/),
        expect.stringMatching(/_access_changes_read$/),
        expect.stringMatching(/_access_simulate$/),
        expect.stringMatching(/_access_requests_defaults$/),
      ]),
    );
  });

  it('insert only current defaults, once each, and nothing where the defaults are already held', () => {
    const defaults = new Set(BASIC_ROLES.flatMap((r) => r.permissions.map((p) => `${r.uid} ${p.action} ${p.scope}`)));
    const raw = new BetterSqlite3(app.database.path, { timeout: 5000 });
    try {
      const seeded = basicRolePermissions(raw);
      expect(seeded.map(key).sort()).toEqual([...defaults].sort());
      for (const m of dataMigrations) raw.exec(m.sql);
      expect(basicRolePermissions(raw), 'on a seeded database the migrations change nothing').toEqual(seeded);

      raw.exec("DELETE FROM Permission WHERE roleId IN (SELECT id FROM Role WHERE uid LIKE 'basic\\_%' ESCAPE '\\')");
      for (const m of dataMigrations) raw.exec(m.sql);
      const inserted = basicRolePermissions(raw).map(key);
      expect(inserted.length).toBeGreaterThan(10);
      expect(new Set(inserted).size, 'no duplicates').toBe(inserted.length);
      for (const k of inserted) expect(defaults.has(k), `${k} is not a default of builtin-roles.ts`).toBe(true);
      for (const m of dataMigrations) raw.exec(m.sql);
      expect(basicRolePermissions(raw).map(key), 'idempotent').toEqual(inserted);
    } finally {
      raw.close();
    }
  });
});
