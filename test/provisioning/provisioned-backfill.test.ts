/**
 * The migration that added Role.provisioned marks the roles earlier
 * provisioning runs created, so a reload after the upgrade still matches them: a role whose uid
 * is the generated `prov_` form, or whose newest `role.create` in the audit log was made by the
 * local operator. Roles made through the API, and built-in roles, stay unmarked. On PostgreSQL
 * the same backfill is its own migration (prisma/migrations-postgresql, `..._role_provisioned_backfill`):
 * the one of the run's provider is tested.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATIONS_DIR, POSTGRESQL_MIGRATIONS_DIR } from '../../src/platform/migrations.js';
import { readMigrations } from '../../src/platform/schema-engine.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { onPostgres } from '../support/postgres.js';
import { expectOutcome, rest } from '../support/requests.js';

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(() => app.close());

const DIR = onPostgres ? POSTGRESQL_MIGRATIONS_DIR : MIGRATIONS_DIR;
const migration = readMigrations(DIR).find((m) => m.name.endsWith(onPostgres ? '_role_provisioned_backfill' : '_role_provisioned'));

/** Clears every mark, runs `backfill` on the app's database and returns the uids it marked, sorted. */
async function runBackfill(backfill: string): Promise<string[]> {
  if (onPostgres) {
    const db = app.database.prisma;
    await db.$executeRawUnsafe('UPDATE "Role" SET "provisioned" = false');
    await db.$executeRawUnsafe(backfill);
    const marked = await db.$queryRawUnsafe<{ uid: string }[]>('SELECT "uid" FROM "Role" WHERE "provisioned" ORDER BY "uid"');
    return marked.map((r) => r.uid);
  }
  const raw = new BetterSqlite3(app.database.path, { timeout: 5000 });
  try {
    raw.exec('UPDATE "Role" SET "provisioned" = false');
    raw.exec(backfill);
    return raw
      .prepare<[], { uid: string }>('SELECT uid FROM Role WHERE provisioned ORDER BY uid')
      .all()
      .map((r) => r.uid);
  } finally {
    raw.close();
  }
}

describe('the role_provisioned migration', () => {
  it('marks the roles provisioning made before it, and only those', async () => {
    expect(migration).toBeDefined();
    const sql = readFileSync(join(DIR, migration?.name as string, 'migration.sql'), 'utf8');
    // SQLite: the migration's UPDATE after its ALTER TABLE; PostgreSQL: the whole data-only migration.
    const backfill = onPostgres ? sql : sql.slice(sql.indexOf('UPDATE "Role"'));
    const db = app.database.prisma;
    // A role made through the API, then one "provisioned" earlier: audited as the local operator.
    const api = await rest(app, 'POST', '/api/access-control/roles', { json: { uid: 'by_hand', name: 'custom:by-hand' } });
    expectOutcome(api, 200);
    await db.role.create({ data: { uid: 'from_file', name: 'custom:from-file', orgId: 0 } });
    await db.auditEvent.create({
      data: {
        orgId: 0,
        action: 'role.create',
        actorKind: 'local',
        actorId: 0,
        authMethod: 'local',
        resourceKind: 'role',
        resourceId: 'from_file',
      },
    });
    await db.role.create({ data: { uid: 'prov_abc', name: 'custom:generated', orgId: 1 } });
    // Deleted by hand and re-created by a user with the uid a file once created: not provisioned.
    await db.auditEvent.create({
      data: {
        orgId: 1,
        action: 'role.create',
        actorKind: 'local',
        actorId: 0,
        authMethod: 'local',
        resourceKind: 'role',
        resourceId: 'by_hand',
      },
    });
    await db.auditEvent.create({
      data: {
        orgId: 1,
        action: 'role.create',
        actorKind: 'user',
        actorId: 1,
        authMethod: 'basic',
        resourceKind: 'role',
        resourceId: 'by_hand',
      },
    });

    expect(await runBackfill(backfill)).toEqual(['from_file', 'prov_abc']);
  });
});
