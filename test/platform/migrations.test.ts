import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { MIGRATIONS_DIR, MIGRATIONS_TABLE, migrateDatabase, migrationLockPath, resolveMigration } from '../../src/platform/migrations.js';
import {
  diagnoseMigrationHistory,
  diffEmptyToSchema,
  diffMigrationsToSchema,
  readMigrations,
  SCHEMA_PATH,
} from '../../src/platform/schema-engine.js';
import { onPostgres } from '../support/postgres.js';

const tempDirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'portcullis-migrations-'));
  tempDirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const schema = readFileSync(SCHEMA_PATH, 'utf8');
const modelNames = [...schema.matchAll(/^model\s+(\w+)\s*\{/gm)].map((m) => m[1] as string);
const migrationNames = readMigrations(MIGRATIONS_DIR).map((m) => m.name);
const FIRST = migrationNames[0] as string;

/** Opens `path`, runs `fn`, closes. */
function inspect<T>(path: string, fn: (db: Database.Database) => T): T {
  const db = new Database(path);
  try {
    return fn(db);
  } finally {
    db.close();
  }
}
type HistoryRow = { migration_name: string; checksum: string; finished_at: unknown; rolled_back_at: unknown; applied_steps_count: number };
const history = (path: string) =>
  inspect(path, (db) => db.prepare<[], HistoryRow>('SELECT * FROM _prisma_migrations ORDER BY started_at').all());
const tableExists = (path: string, name: string) =>
  inspect(path, (db) => db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined);

/** A copy of MIGRATIONS_DIR, plus one extra migration folder when given. */
function migrationsCopy(extra?: { name: string; sql: string }): string {
  const dir = join(tempDir(), 'migrations');
  cpSync(MIGRATIONS_DIR, dir, { recursive: true });
  if (extra) {
    mkdirSync(join(dir, extra.name));
    writeFileSync(join(dir, extra.name, 'migration.sql'), extra.sql);
  }
  return dir;
}
const dbPath = () => join(tempDir(), 'test.db');

// SQLite-specific: the SQLite migrations, their file lock and SQLite's failure modes; PostgreSQL's are in migrations-postgres.test.ts.
describe.skipIf(onPostgres)('committed migrations vs schema.prisma', () => {
  it('have no drift: diffing migrations to the schema gives no change', async () => {
    const sql = await diffMigrationsToSchema({ schemaPath: SCHEMA_PATH, migrationsDir: MIGRATIONS_DIR });
    expect(sql, 'schema.prisma changed without a migration: run `npm run db:migration -- <name>`').toBe('');
  });

  it('the diff is not vacuous: from an empty database it creates the tables', async () => {
    expect(await diffEmptyToSchema({ schemaPath: SCHEMA_PATH })).toContain('CREATE TABLE "Role"');
  });

  it('detects a schema change the migrations lack', async () => {
    const schemaPath = join(tempDir(), 'schema.prisma');
    writeFileSync(schemaPath, `${schema}\nmodel DriftProbe {\n  id Int @id\n}\n`);
    const sql = await diffMigrationsToSchema({ schemaPath, migrationsDir: MIGRATIONS_DIR });
    expect(sql).toContain('CREATE TABLE "DriftProbe"');
  });
});

describe.skipIf(onPostgres)('migrateDatabase: fresh database', () => {
  it("creates every model table, records each migration as Prisma does, and Prisma's history check agrees", async () => {
    const path = join(tempDir(), 'nested', 'dir', 'fresh.db');
    const logged: string[] = [];
    const { applied } = await migrateDatabase(path, { log: (msg, fields) => logged.push(`${msg} ${JSON.stringify(fields)}`) });
    expect(applied).toEqual(migrationNames);
    expect(logged).toHaveLength(migrationNames.length);
    expect(modelNames.length).toBeGreaterThan(5);
    for (const model of modelNames) expect(tableExists(path, model), model).toBe(true);

    const rows = history(path);
    expect(rows.map((r) => r.migration_name)).toEqual(migrationNames);
    for (const row of rows) {
      const bytes = readFileSync(join(MIGRATIONS_DIR, row.migration_name, 'migration.sql'));
      expect(row).toMatchObject({
        checksum: createHash('sha256').update(bytes).digest('hex'),
        rolled_back_at: null,
        applied_steps_count: 1,
      });
      expect(row.finished_at).not.toBeNull();
    }
    expect(await diagnoseMigrationHistory({ databasePath: path, migrationsDir: MIGRATIONS_DIR })).toEqual({
      editedMigrationNames: [],
      failedMigrationNames: [],
      hasMigrationsTable: true,
      history: null,
    });
  });

  it('applies nothing the second time', async () => {
    const path = dbPath();
    await migrateDatabase(path);
    expect((await migrateDatabase(path)).applied).toEqual([]);
    expect(history(path)).toHaveLength(migrationNames.length);
  });
});

describe.skipIf(onPostgres)('migrateDatabase: concurrent starters', () => {
  /** A separate Node process running migrateDatabase on `path`; stderr carries its log lines. */
  function starter(path: string): { child: ChildProcess; stderr: () => string; done: Promise<string[]> } {
    const code = `import { migrateDatabase } from './src/platform/migrations.ts';
const { applied } = await migrateDatabase(${JSON.stringify(path)}, { log: (msg) => console.error(msg) });
console.log(JSON.stringify(applied));`;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '--eval', code], { cwd: REPO_ROOT });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      err += chunk.toString();
    });
    const done = new Promise<string[]>((resolve, reject) => {
      child.on('error', reject);
      child.on('close', (status) => (status === 0 ? resolve(JSON.parse(out) as string[]) : reject(new Error(`exit ${status}: ${err}`))));
    });
    return { child, stderr: () => err, done };
  }

  it('four processes on one fresh file: all succeed, each migration applied once', async () => {
    const path = dbPath();
    const results = await Promise.all([1, 2, 3, 4].map(() => starter(path).done));
    expect(results.flat().sort()).toEqual(migrationNames);
    expect(history(path).map((r) => r.migration_name)).toEqual(migrationNames);
  });

  it('processes that find the lock taken wait for it, then find the work done', async () => {
    const path = dbPath();
    const lock = new Database(migrationLockPath(path));
    lock.exec('BEGIN IMMEDIATE'); // as a migrating process holds it
    const starters = [1, 2, 3].map(() => starter(path));
    try {
      await expect.poll(() => starters.every((s) => s.stderr().includes('waiting for another process')), { timeout: 20_000 }).toBe(true);
      expect(tableExists(path, MIGRATIONS_TABLE)).toBe(false);
    } finally {
      lock.exec('ROLLBACK');
      lock.close();
    }
    const results = await Promise.all(starters.map((s) => s.done));
    expect(results.flat().sort()).toEqual(migrationNames);
    expect(history(path)).toHaveLength(migrationNames.length);
  });

  it('calls in one process serialize without stalling each other; a lock held too long times out', async () => {
    const path = dbPath();
    const results = await Promise.all([migrateDatabase(path), migrateDatabase(path), migrateDatabase(path)]);
    expect(results.flatMap((r) => r.applied)).toEqual(migrationNames);

    // An up-to-date database takes the read-only fast path, no lock at all; a fresh one needs it.
    const lock = new Database(migrationLockPath(path));
    lock.exec('BEGIN IMMEDIATE');
    try {
      expect((await migrateDatabase(path, { lockTimeoutMs: 100 })).applied).toEqual([]);
    } finally {
      lock.exec('ROLLBACK');
      lock.close();
    }
    const fresh = dbPath();
    const freshLock = new Database(migrationLockPath(fresh));
    freshLock.exec('BEGIN IMMEDIATE');
    try {
      await expect(migrateDatabase(fresh, { lockTimeoutMs: 100 })).rejects.toThrow(/Timed out after 100 ms/);
    } finally {
      freshLock.exec('ROLLBACK');
      freshLock.close();
    }
  });
});
describe.skipIf(onPostgres)('migrateDatabase: edited history', () => {
  it('refuses an applied migration whose migration.sql was edited, naming it; CRLF line endings are no edit', async () => {
    const path = dbPath();
    const dir = migrationsCopy();
    await migrateDatabase(path, { migrationsDir: dir });
    const file = join(dir, FIRST, 'migration.sql');
    const original = readFileSync(file, 'utf8');
    writeFileSync(file, original.replaceAll('\n', '\r\n')); // git autocrlf
    expect((await migrateDatabase(path, { migrationsDir: dir })).applied).toEqual([]);
    writeFileSync(file, `${original}\n-- edited after it was applied\n`);
    await expect(migrateDatabase(path, { migrationsDir: dir })).rejects.toThrow(new RegExp(`modified: ${FIRST} \\(checksum`));
  });

  it('refuses a database that has tables but no history (P3005: baseline first)', async () => {
    const path = dbPath();
    inspect(path, (db) => db.exec('CREATE TABLE "Stray" ("id" INTEGER)'));
    await expect(migrateDatabase(path)).rejects.toMatchObject({ code: 'P3005', message: expect.stringMatching(/not empty/) });
  });
});

describe.skipIf(onPostgres)('migrateDatabase: failing migrations', () => {
  const BROKEN = '99991231235959_broken';

  it('names a failing migration, records it as failed, and refuses later starts until it is resolved (P3009)', async () => {
    const path = dbPath();
    const dir = migrationsCopy({ name: BROKEN, sql: 'CREATE TABLE "Half" ("id" INTEGER);\nSELECT * FROM "NoSuchTable";\n' });
    await expect(migrateDatabase(path, { migrationsDir: dir })).rejects.toThrow(new RegExp(`Migration ${BROKEN} failed.*NoSuchTable`, 's'));
    // The engine runs SQLite migrations without a transaction (as migrate deploy): the first statement stays.
    expect(tableExists(path, 'Half')).toBe(true);
    expect(history(path).at(-1)).toMatchObject({ migration_name: BROKEN, finished_at: null, rolled_back_at: null });
    await expect(migrateDatabase(path, { migrationsDir: dir })).rejects.toThrow(new RegExp(`P3009.*failed migrations: ${BROKEN}`));

    // Repair by hand, resolve as rolled back, fix the script: the next start applies it.
    inspect(path, (db) => db.exec('DROP TABLE "Half"'));
    await resolveMigration(path, BROKEN, 'rolled-back', { migrationsDir: dir });
    writeFileSync(join(dir, BROKEN, 'migration.sql'), 'CREATE TABLE "Half" ("id" INTEGER);\n');
    expect((await migrateDatabase(path, { migrationsDir: dir })).applied).toEqual([BROKEN]);
    expect(
      history(path)
        .filter((r) => r.migration_name === BROKEN)
        .map((r) => r.rolled_back_at === null),
    ).toEqual([false, true]);
  });

  it('a migration that breaks a foreign key fails (the engine connection enforces them) and is named', async () => {
    const path = dbPath();
    const orphan = `INSERT INTO "OrgUser" (orgId, userId, role, updated) VALUES (42, 42, 'Viewer', 0);\n`;
    const dir = migrationsCopy({ name: '99991231235959_orphan', sql: orphan });
    await expect(migrateDatabase(path, { migrationsDir: dir })).rejects.toThrow(/Migration 99991231235959_orphan failed.*FOREIGN KEY/is);
    expect(inspect(path, (db) => db.prepare('SELECT count(*) FROM "OrgUser"').pluck().get())).toBe(0);
  });

  it("keeps child rows when a migration redefines a referenced table (Prisma's RedefineTables)", async () => {
    const path = dbPath();
    await migrateDatabase(path);
    inspect(path, (db) =>
      db.exec(`INSERT INTO "Org" (id, name, updated) VALUES (1, 'Main Org.', 0);
        INSERT INTO "User" (id, orgId, login, email, updated) VALUES (1, 1, 'admin', 'a@x', 0);
        INSERT INTO "OrgUser" (orgId, userId, role, updated) VALUES (1, 1, 'Admin', 0);`),
    );
    const redefine = `PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_Org" ("id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, "name" TEXT NOT NULL,
  "created" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP, "updated" DATETIME NOT NULL);
INSERT INTO "new_Org" ("id", "name", "created", "updated") SELECT "id", "name", "created", "updated" FROM "Org";
DROP TABLE "Org";
ALTER TABLE "new_Org" RENAME TO "Org";
CREATE UNIQUE INDEX "Org_name_key" ON "Org"("name");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;
`;
    const dir = migrationsCopy({ name: '99991231235959_redefine_org', sql: redefine });
    expect((await migrateDatabase(path, { migrationsDir: dir })).applied).toEqual(['99991231235959_redefine_org']);
    expect(inspect(path, (db) => db.prepare('SELECT count(*) FROM "OrgUser"').pluck().get())).toBe(1);
  });
});

describe.skipIf(onPostgres)('migrateDatabase: databases from the earlier hand-written migrator', () => {
  /**
   * What `applyMigrations` of src/db/migrate.ts (removed after commit f72ff95) left: its verbatim copy of
   * Prisma's history DDL, each script run by better-sqlite3, and rows with epoch-ms timestamps.
   */
  function legacyMigrate(path: string, migrationsDir: string): void {
    inspect(path, (db) => {
      db.exec(`CREATE TABLE "_prisma_migrations" (
    "id"                    TEXT PRIMARY KEY NOT NULL,
    "checksum"              TEXT NOT NULL,
    "finished_at"           DATETIME,
    "migration_name"        TEXT NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        DATETIME,
    "started_at"            DATETIME NOT NULL DEFAULT current_timestamp,
    "applied_steps_count"   INTEGER UNSIGNED NOT NULL DEFAULT 0
)`);
      for (const m of readMigrations(migrationsDir)) {
        const started = Date.now();
        db.exec(m.sql);
        db.prepare(
          `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, logs, rolled_back_at, started_at, applied_steps_count)
           VALUES (?, ?, ?, ?, NULL, NULL, ?, 1)`,
        ).run(crypto.randomUUID(), createHash('sha256').update(m.sql).digest('hex'), Date.now(), m.name, started);
      }
    });
  }

  it('accepts its history unchanged, then applies newer migrations on top', async () => {
    const path = dbPath();
    legacyMigrate(path, MIGRATIONS_DIR);
    const before = history(path);
    expect(typeof before[0]?.finished_at).toBe('number');
    expect((await migrateDatabase(path)).applied).toEqual([]);
    expect(history(path)).toEqual(before);

    const dir = migrationsCopy({ name: '99991231235959_next', sql: 'CREATE TABLE "Next" ("id" INTEGER);\n' });
    expect((await migrateDatabase(path, { migrationsDir: dir })).applied).toEqual(['99991231235959_next']);
    const diagnosis = await diagnoseMigrationHistory({ databasePath: path, migrationsDir: dir });
    expect(diagnosis).toMatchObject({ editedMigrationNames: [], failedMigrationNames: [], history: null });
  });
});
