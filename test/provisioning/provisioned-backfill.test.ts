/**
 * The migration that added Role.provisioned (issue #22 item 3) marks the roles earlier
 * provisioning runs created, so a reload after the upgrade still matches them: a role whose uid
 * is the generated `prov_` form, or whose newest `role.create` in the audit log was made by the
 * local operator. Roles made through the API, and built-in roles, stay unmarked.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATIONS_DIR } from '../../src/platform/migrations.js';
import { readMigrations } from '../../src/platform/schema-engine.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { expectOutcome, rest } from '../support/requests.js';

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(() => app.close());

const migration = readMigrations(MIGRATIONS_DIR).find((m) => m.name.endsWith('_role_provisioned'));

describe('the role_provisioned migration', () => {
  it('marks the roles provisioning made before it, and only those', async () => {
    expect(migration).toBeDefined();
    const sql = readFileSync(join(MIGRATIONS_DIR, migration?.name as string, 'migration.sql'), 'utf8');
    const backfill = sql.slice(sql.indexOf('UPDATE "Role"'));
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

    const raw = new BetterSqlite3(app.database.path, { timeout: 5000 });
    try {
      raw.exec('UPDATE "Role" SET "provisioned" = false');
      raw.exec(backfill);
      const marked = raw.prepare<[], { uid: string }>('SELECT uid FROM Role WHERE provisioned ORDER BY uid').all();
      expect(marked.map((r) => r.uid)).toEqual(['from_file', 'prov_abc']);
    } finally {
      raw.close();
    }
  });
});
