import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { applyMigrations, MIGRATIONS_DIR } from '../../src/platform/legacy-migrate.js';
import { diagnoseMigrationHistory, diffEmptyToSchema, diffMigrationsToSchema, SCHEMA_PATH } from '../../src/platform/legacy-schema-engine.js';

const tempDirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'portcullis-migrations-'));
  tempDirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh database file in a temp dir; closed by the caller. */
function freshDb(path = join(tempDir(), 'test.db')): Database.Database {
  return new Database(path);
}

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const schema = readFileSync(SCHEMA_PATH, 'utf8');
const modelNames = [...schema.matchAll(/^model\s+(\w+)\s*\{/gm)].map((m) => m[1] as string);
const migrationNames = readdirSync(MIGRATIONS_DIR, { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => e.name)
  .sort();

describe('committed migrations vs schema.prisma', () => {
  it('have no drift: diffing migrations to the schema gives no change', async () => {
    const sql = await diffMigrationsToSchema({ schemaPath: SCHEMA_PATH, migrationsDir: MIGRATIONS_DIR });
    // On failure the diff shows the missing SQL.
    expect(sql, 'schema.prisma changed without a migration: run `npm run db:migration -- <name>`').toBe('');
  });

  it('the diff is not vacuous: from an empty database it creates the tables', async () => {
    const sql = await diffEmptyToSchema({ schemaPath: SCHEMA_PATH });
    expect(sql).toContain('CREATE TABLE "Role"');
  });

  it('detects a schema change the migrations lack', async () => {
    const dir = tempDir();
    const migrationsDir = join(dir, 'migrations');
    cpSync(MIGRATIONS_DIR, migrationsDir, { recursive: true });
    const schemaPath = join(dir, 'schema.prisma');
    writeFileSync(schemaPath, `${schema}\nmodel DriftProbe {\n  id Int @id\n}\n`);
    const sql = await diffMigrationsToSchema({ schemaPath, migrationsDir });
    expect(sql).toContain('CREATE TABLE "DriftProbe"');
  });
});

interface HistoryRow {
  migration_name: string;
  checksum: string;
  finished_at: number | null;
  rolled_back_at: number | null;
  applied_steps_count: number;
}

describe('applyMigrations', () => {
  it('creates every model table and records each migration with its checksum', () => {
    const db = freshDb();
    try {
      const logged: string[] = [];
      const { applied } = applyMigrations(db, {
        migrationsDir: MIGRATIONS_DIR,
        log: (msg, fields) => logged.push(`${msg} ${JSON.stringify(fields)}`),
      });
      expect(applied).toEqual(migrationNames);
      expect(logged).toHaveLength(migrationNames.length);

      const tables = db
        .prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'")
        .all()
        .map((r) => r.name);
      expect(modelNames.length).toBeGreaterThan(5);
      for (const model of modelNames) expect(tables).toContain(model);

      const rows = db
        .prepare<[], HistoryRow>(
          `SELECT migration_name, checksum, finished_at, rolled_back_at, applied_steps_count
           FROM _prisma_migrations ORDER BY migration_name`,
        )
        .all();
      expect(rows.map((r) => r.migration_name)).toEqual(migrationNames);
      for (const row of rows) {
        const bytes = readFileSync(join(MIGRATIONS_DIR, row.migration_name, 'migration.sql'));
        expect(row.checksum).toBe(createHash('sha256').update(bytes).digest('hex'));
        expect(typeof row.finished_at).toBe('number');
        expect(row.rolled_back_at).toBeNull();
        expect(row.applied_steps_count).toBe(1);
      }
    } finally {
      db.close();
    }
  });

  it("leaves a history Prisma's engine reads as complete, with nothing edited or failed", async () => {
    const databasePath = join(tempDir(), 'prisma-check.db');
    const db = freshDb(databasePath);
    try {
      applyMigrations(db, { migrationsDir: MIGRATIONS_DIR });
    } finally {
      db.close();
    }
    const diagnosis = await diagnoseMigrationHistory({
      databasePath,
      migrationsDir: MIGRATIONS_DIR,
      schemaPath: SCHEMA_PATH,
    });
    expect(diagnosis).toEqual({
      editedMigrationNames: [],
      failedMigrationNames: [],
      hasMigrationsTable: true,
      history: null,
    });
  });

  it('applies nothing the second time', () => {
    const db = freshDb();
    try {
      applyMigrations(db, { migrationsDir: MIGRATIONS_DIR });
      expect(applyMigrations(db, { migrationsDir: MIGRATIONS_DIR }).applied).toEqual([]);
      const count = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM _prisma_migrations').get();
      expect(count?.n).toBe(migrationNames.length);
    } finally {
      db.close();
    }
  });

  it('applies each migration once when several processes start together (BEGIN IMMEDIATE)', async () => {
    const databasePath = join(tempDir(), 'race.db');
    // Each child imports the real module through tsx, resolving packages from the repo root.
    const code = `import Database from 'better-sqlite3';
import { applyMigrations } from './src/db/migrate.ts';
const db = new Database(${JSON.stringify(databasePath)}, { timeout: 20000 });
console.log(JSON.stringify(applyMigrations(db).applied));
db.close();`;
    const run = () =>
      new Promise<string[]>((resolve, reject) => {
        const args = ['--import', 'tsx', '--input-type=module', '--eval', code];
        const child = spawn(process.execPath, args, { cwd: REPO_ROOT });
        let out = '';
        let err = '';
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
        });
        child.stderr.on('data', (chunk: Buffer) => {
          err += chunk.toString();
        });
        child.on('error', reject);
        child.on('close', (status) =>
          status === 0 ? resolve(JSON.parse(out) as string[]) : reject(new Error(`child exited ${status}: ${err}`)),
        );
      });
    const results = await Promise.all([run(), run(), run(), run()]);
    // Exactly one process applied each migration; the others found it recorded.
    expect(results.flat().sort()).toEqual(migrationNames);
    const db = freshDb(databasePath);
    try {
      const count = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM _prisma_migrations').get();
      expect(count?.n).toBe(migrationNames.length);
    } finally {
      db.close();
    }
  });

  it('refuses an applied migration whose checksum differs from the file', () => {
    const db = freshDb();
    try {
      applyMigrations(db, { migrationsDir: MIGRATIONS_DIR });
      db.prepare("UPDATE _prisma_migrations SET checksum = 'tampered' WHERE migration_name = ?").run(migrationNames[0]);
      expect(() => applyMigrations(db, { migrationsDir: MIGRATIONS_DIR })).toThrow(/modified.*checksum/s);
    } finally {
      db.close();
    }
  });

  it('refuses a recorded failed migration', () => {
    const db = freshDb();
    try {
      applyMigrations(db, { migrationsDir: MIGRATIONS_DIR });
      db.prepare('UPDATE _prisma_migrations SET finished_at = NULL WHERE migration_name = ?').run(migrationNames[0]);
      expect(() => applyMigrations(db, { migrationsDir: MIGRATIONS_DIR })).toThrow(/failed migrations/);
    } finally {
      db.close();
    }
  });

  /** MIGRATIONS_DIR plus one extra migration folder, in a temp dir. */
  function withExtraMigration(name: string, sql: string): string {
    const dir = tempDir();
    cpSync(MIGRATIONS_DIR, dir, { recursive: true });
    mkdirSync(join(dir, name));
    writeFileSync(join(dir, name, 'migration.sql'), sql);
    return dir;
  }

  it("keeps child rows when a migration redefines a referenced table (Prisma's RedefineTables)", () => {
    const db = freshDb();
    try {
      applyMigrations(db, { migrationsDir: MIGRATIONS_DIR });
      db.exec(`INSERT INTO "Org" (id, name, updated) VALUES (1, 'Main Org.', 0);
        INSERT INTO "User" (id, orgId, login, email, updated) VALUES (1, 1, 'admin', 'a@x', 0);
        INSERT INTO "OrgUser" (orgId, userId, role, updated) VALUES (1, 1, 'Admin', 0);`);
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
      const dir = withExtraMigration('99991231235959_redefine_org', redefine);
      expect(applyMigrations(db, { migrationsDir: dir }).applied).toEqual(['99991231235959_redefine_org']);
      expect(db.prepare('SELECT count(*) AS n FROM "OrgUser"').pluck().get()).toBe(1);
      expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    } finally {
      db.close();
    }
  });

  it('rolls back a migration that leaves foreign key violations', () => {
    const db = freshDb();
    try {
      const dir = withExtraMigration(
        '99991231235959_orphan',
        `INSERT INTO "OrgUser" (orgId, userId, role, updated) VALUES (42, 42, 'Viewer', 0);\n`,
      );
      expect(() => applyMigrations(db, { migrationsDir: dir })).toThrow(/99991231235959_orphan.*foreign key/);
      expect(db.prepare('SELECT count(*) AS n FROM "OrgUser"').pluck().get()).toBe(0);
    } finally {
      db.close();
    }
  });

  it('rolls back a failing migration and records nothing for it', () => {
    const dir = withExtraMigration('99991231235959_broken', 'CREATE TABLE "Half" ("id" INTEGER);\nSELECT * FROM "NoSuchTable";\n');
    const db = freshDb();
    try {
      expect(() => applyMigrations(db, { migrationsDir: dir })).toThrow(/99991231235959_broken.*rolled back/);
      const half = db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'Half'").get();
      expect(half).toBeUndefined();
      const names = db
        .prepare<[], { migration_name: string }>('SELECT migration_name FROM _prisma_migrations')
        .all()
        .map((r) => r.migration_name);
      expect(names).toEqual(migrationNames);
    } finally {
      db.close();
    }
  });
});
