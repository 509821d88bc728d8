/**
 * The PostgreSQL migrations (prisma/migrations-postgresql) and how src/platform/migrations.ts
 * applies them, on the run's embedded server (`npm run test:postgres` only; the SQLite twin is
 * migrations.test.ts). The first test is the integrator's check: after merging models added on
 * another branch, it fails until `npm run db:migration -- <name>` wrote the PostgreSQL migration.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, describe, expect, inject, it } from 'vitest';
import { derivePostgresqlSchema } from '../../scripts/postgresql-schema.mjs';
import type { DatabaseTarget } from '../../src/platform/database-url.js';
import { MIGRATIONS_TABLE, migrateDatabase, POSTGRESQL_MIGRATIONS_DIR, resolveMigration } from '../../src/platform/migrations.js';
import { diffMigrationsToSchema, readMigrations, SCHEMA_PATH } from '../../src/platform/schema-engine.js';
import { onPostgres, ownDatabaseUrl, type TestDatabase } from '../support/postgres.js';

const dirs: string[] = [];
const databases: TestDatabase[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'portcullis-pg-migrations-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
afterAll(async () => {
  for (const database of databases.splice(0)) await database.drop();
});

/** A new empty database on the run's server. */
async function emptyDatabase(): Promise<DatabaseTarget & { provider: 'postgresql' }> {
  const database = await ownDatabaseUrl('', 'empty');
  databases.push(database);
  return { provider: 'postgresql', url: database.url };
}

async function query<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

const names = readMigrations(POSTGRESQL_MIGRATIONS_DIR).map((m) => m.name);

/** A copy of the PostgreSQL migrations, plus one extra migration folder when given. */
function migrationsCopy(extra?: { name: string; sql: string }): string {
  const dir = join(tempDir(), 'migrations');
  cpSync(POSTGRESQL_MIGRATIONS_DIR, dir, { recursive: true });
  if (extra) {
    mkdirSync(join(dir, extra.name));
    writeFileSync(join(dir, extra.name, 'migration.sql'), extra.sql);
  }
  return dir;
}

describe.skipIf(!onPostgres)('PostgreSQL migrations', () => {
  it('produce exactly the data model derived from prisma/schema.prisma (else: npm run db:migration -- <name>)', async () => {
    const schemaPath = join(tempDir(), 'schema.prisma');
    writeFileSync(schemaPath, derivePostgresqlSchema(readFileSync(SCHEMA_PATH, 'utf8')));
    const sql = await diffMigrationsToSchema({
      schemaPath,
      migrationsDir: POSTGRESQL_MIGRATIONS_DIR,
      target: { provider: 'postgresql', url: inject('postgresAdminUrl') },
    });
    expect(sql, 'prisma/migrations-postgresql lags behind the models: run `npm run db:migration -- <name>`').toBe('');
    expect(readFileSync(join(POSTGRESQL_MIGRATIONS_DIR, 'migration_lock.toml'), 'utf8')).toContain('provider = "postgresql"');
  });

  it('apply to an empty database once, in order, with the change counter at version 0; a second run applies none', async () => {
    const target = await emptyDatabase();
    const logged: string[] = [];
    const { applied } = await migrateDatabase(target, { log: (msg, fields) => logged.push(`${msg} ${JSON.stringify(fields)}`) });
    expect(applied).toEqual(names);
    expect(logged).toHaveLength(names.length);
    const history = await query<{ migration_name: string; finished_at: Date | null }>(
      target.url,
      `SELECT migration_name, finished_at FROM "${MIGRATIONS_TABLE}" ORDER BY started_at`,
    );
    expect(history.map((r) => r.migration_name)).toEqual(names);
    expect(history.every((r) => r.finished_at !== null)).toBe(true);
    expect(await query(target.url, 'SELECT "id", "version" FROM "_portcullis_change"')).toEqual([{ id: 1, version: '0' }]);
    expect((await migrateDatabase(target)).applied).toEqual([]);
  });

  it('concurrent starters on one empty database: one applies everything, the others nothing, none fails', async () => {
    const target = await emptyDatabase();
    const results = await Promise.all([migrateDatabase(target), migrateDatabase(target), migrateDatabase(target)]);
    expect(results.flatMap((r) => r.applied).sort()).toEqual([...names].sort());
    expect(results.filter((r) => r.applied.length > 0)).toHaveLength(1);
  });

  it('refuses to go on when an applied migration.sql was edited', async () => {
    const target = await emptyDatabase();
    const dir = migrationsCopy();
    await migrateDatabase(target, { migrationsDir: dir });
    const first = names[0] as string;
    writeFileSync(join(dir, first, 'migration.sql'), `${readFileSync(join(dir, first, 'migration.sql'), 'utf8')}\n-- edited\n`);
    await expect(migrateDatabase(target, { migrationsDir: dir })).rejects.toThrow(new RegExp(`modified: ${first} \\(checksum`));
  });

  it('a failing migration leaves nothing (one implicit transaction), blocks later starts, and applies once resolved and fixed', async () => {
    const target = await emptyDatabase();
    const BROKEN = '99991231235959_broken';
    const dir = migrationsCopy({ name: BROKEN, sql: 'CREATE TABLE "Half" ("id" INTEGER);\nSELECT * FROM "NoSuchTable";\n' });
    await expect(migrateDatabase(target, { migrationsDir: dir })).rejects.toThrow(
      new RegExp(`Migration ${BROKEN} failed.*PostgreSQL rolled its statements back.*NoSuchTable`, 's'),
    );
    expect(await query(target.url, `SELECT to_regclass('public."Half"') AS half`)).toEqual([{ half: null }]);
    await expect(migrateDatabase(target, { migrationsDir: dir })).rejects.toThrow(new RegExp(`P3009.*failed migrations: ${BROKEN}`));
    await resolveMigration(target, BROKEN, 'rolled-back', { migrationsDir: dir });
    writeFileSync(join(dir, BROKEN, 'migration.sql'), 'CREATE TABLE "Half" ("id" INTEGER);\n');
    expect((await migrateDatabase(target, { migrationsDir: dir })).applied).toEqual([BROKEN]);
  });
});
