/**
 * Applies the committed SQL migrations (`prisma/migrations/<name>/migration.sql`) to a SQLite
 * database when the service starts, and records them in `_prisma_migrations` exactly as
 * `prisma migrate deploy` does, so the Prisma CLI and this migrator can take turns on one file.
 *
 * Rules taken from Prisma's schema engine (prisma-engines `schema-engine/core/src/commands/
 * apply_migrations.rs`, `schema-connector/src/checksum.rs`, the SQLite migration persistence):
 * - history table DDL: the engine's SQLite `CREATE TABLE "_prisma_migrations"` (copied below);
 * - a row is *failed* when `finished_at` and `rolled_back_at` are both NULL: nothing is applied
 *   until it is resolved (Prisma P3009);
 * - a row with `rolled_back_at` set is an audit record only (`prisma migrate resolve
 *   --rolled-back`), so that migration counts as not applied and is applied again;
 * - `checksum` is the lowercase hex SHA-256 of the migration.sql bytes; comparison accepts the
 *   LF and CRLF spellings of the same script, because git may rewrite line endings;
 * - timestamps are Unix epoch milliseconds (INTEGER), as Prisma's SQLite connector binds them;
 * - a non-empty database without `_prisma_migrations` is refused (Prisma P3005: baseline first).
 * Stricter than `migrate deploy`, which does not compare checksums: an applied migration whose
 * migration.sql was edited afterwards is refused (as `migrate dev` would flag it).
 *
 * Runtime module: depends on node: built-ins and better-sqlite3 only.
 */
import { createHash, randomUUID } from 'node:crypto';
import { type Dirent, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type BetterSqlite3 from 'better-sqlite3';

/** Absolute path of the committed migrations, `<repo>/prisma/migrations`. */
export const MIGRATIONS_DIR = fileURLToPath(new URL('../../prisma/migrations', import.meta.url));

/** Name of the history table Prisma Migrate reads and writes. */
export const MIGRATIONS_TABLE = '_prisma_migrations';

/** Prisma's SQLite DDL for the history table, verbatim from the schema engine. */
const CREATE_MIGRATIONS_TABLE = `CREATE TABLE "_prisma_migrations" (
    "id"                    TEXT PRIMARY KEY NOT NULL,
    "checksum"              TEXT NOT NULL,
    "finished_at"           DATETIME,
    "migration_name"        TEXT NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        DATETIME,
    "started_at"            DATETIME NOT NULL DEFAULT current_timestamp,
    "applied_steps_count"   INTEGER UNSIGNED NOT NULL DEFAULT 0
)`;

/** One migration folder on disk. */
export interface MigrationFile {
  /** Folder name, e.g. `20261122000000_init`; also the `migration_name` recorded. */
  name: string;
  /** Contents of `migration.sql` (UTF-8). */
  sql: string;
  /** Lowercase hex SHA-256 of the `migration.sql` bytes. */
  checksum: string;
}

/** One row of `_prisma_migrations` (timestamps as stored: epoch ms, or text if written so). */
export interface MigrationRecord {
  id: string;
  checksum: string;
  finished_at: number | string | null;
  migration_name: string;
  logs: string | null;
  rolled_back_at: number | string | null;
  started_at: number | string;
  applied_steps_count: number;
}

export type MigrationLog = (msg: string, fields?: object) => void;

export interface ApplyMigrationsOptions {
  /** Folder holding `<name>/migration.sql` folders; default MIGRATIONS_DIR. */
  migrationsDir?: string;
  /** Called once per applied migration, and for history rows with no folder on disk. */
  log?: MigrationLog | undefined;
}

export interface ApplyMigrationsResult {
  /** Names of the migrations applied by this call, in order; empty when up to date. */
  applied: string[];
}

/** Lowercase hex SHA-256 of `data`: Prisma's migration checksum. */
export function migrationChecksum(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/**
 * Whether `checksum` was recorded for `sql`, accepting the script with LF or CRLF line endings
 * (prisma-engines `script_matches_checksum`).
 */
export function checksumMatches(sql: string, checksum: string): boolean {
  const variants = [sql, sql.replaceAll('\r\n', '\n'), sql.replaceAll('\r\n', '\n').replaceAll('\n', '\r\n')];
  return variants.some((variant) => migrationChecksum(variant) === checksum);
}

/**
 * Reads the migration folders of `migrationsDir`, sorted by folder name (byte order, as the
 * schema engine sorts them). Files at the top level (migration_lock.toml) are ignored; a
 * missing directory means no migrations.
 * @throws Error when a migration folder has no readable migration.sql.
 */
export function readMigrations(migrationsDir: string): MigrationFile[] {
  let entries: Dirent[];
  try {
    entries = readdirSync(migrationsDir, { withFileTypes: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  const names = entries
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return names.map((name) => {
    const path = join(migrationsDir, name, 'migration.sql');
    let bytes: Buffer;
    try {
      bytes = readFileSync(path);
    } catch (err) {
      throw new Error(`Migration folder ${name} has no readable migration.sql (${path})`, { cause: err });
    }
    return { name, sql: bytes.toString('utf8'), checksum: migrationChecksum(bytes) };
  });
}

function tableExists(db: BetterSqlite3.Database, name: string): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined;
}

function readRecords(db: BetterSqlite3.Database, name?: string): MigrationRecord[] {
  const columns = 'id, checksum, finished_at, migration_name, logs, rolled_back_at, started_at, applied_steps_count';
  if (name === undefined) {
    return db.prepare<[], MigrationRecord>(`SELECT ${columns} FROM "${MIGRATIONS_TABLE}" ORDER BY started_at ASC`).all();
  }
  return db
    .prepare<[string], MigrationRecord>(`SELECT ${columns} FROM "${MIGRATIONS_TABLE}" WHERE migration_name = ? ORDER BY started_at ASC`)
    .all(name);
}

/** Runs `fn` inside BEGIN IMMEDIATE (the write lock, so concurrent starters serialize). */
function immediate<T>(db: BetterSqlite3.Database, fn: () => T): T {
  db.exec('BEGIN IMMEDIATE');
  try {
    const result = fn();
    db.exec('COMMIT');
    return result;
  } catch (err) {
    if (db.inTransaction) db.exec('ROLLBACK');
    throw err;
  }
}

/** Creates the history table when missing; refuses to adopt a database that already has tables. */
function ensureMigrationsTable(db: BetterSqlite3.Database): void {
  if (tableExists(db, MIGRATIONS_TABLE)) return;
  immediate(db, () => {
    if (tableExists(db, MIGRATIONS_TABLE)) return; // another process created it meanwhile
    const existing = db
      .prepare<[], { name: string }>(
        "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%' ORDER BY name",
      )
      .all()
      .map((row) => row.name);
    if (existing.length > 0) {
      throw new Error(
        `Refusing to migrate: the database has tables (${existing.join(', ')}) but no ${MIGRATIONS_TABLE} ` +
          'history. Baseline it first (prisma migrate resolve --applied <migration>) or start from an empty file.',
      );
    }
    db.exec(CREATE_MIGRATIONS_TABLE);
  });
}

function isFailed(record: MigrationRecord): boolean {
  return record.finished_at === null && record.rolled_back_at === null;
}

/** Throws when the recorded history forbids applying anything (failed or edited migrations). */
function checkHistory(records: MigrationRecord[], files: MigrationFile[], log: MigrationLog): void {
  const failed = records.filter(isFailed);
  if (failed.length > 0) {
    const details = failed
      .map((r) => `${r.migration_name} (started at ${r.started_at})${r.logs?.trim() ? `: ${r.logs.trim()}` : ''}`)
      .join('; ');
    throw new Error(
      `Refusing to migrate: ${MIGRATIONS_TABLE} records failed migrations: ${details}. ` +
        'Repair the database, then mark them with prisma migrate resolve --applied or --rolled-back.',
    );
  }
  const byName = new Map(files.map((file) => [file.name, file]));
  const edited: string[] = [];
  for (const record of records) {
    if (record.rolled_back_at !== null) continue;
    const file = byName.get(record.migration_name);
    if (!file) {
      log('applied migration has no folder in the migrations directory', { migration: record.migration_name });
      continue;
    }
    if (!checksumMatches(file.sql, record.checksum)) edited.push(record.migration_name);
  }
  if (edited.length > 0) {
    throw new Error(
      `Refusing to migrate: migration.sql of already applied migrations was modified: ${edited.join(', ')} ` +
        `(checksum differs from ${MIGRATIONS_TABLE}). Restore the committed file; add a new migration instead.`,
    );
  }
}

/**
 * Applies one migration in its own BEGIN IMMEDIATE transaction. Returns false when another
 * process applied it after our history check.
 *
 * Foreign keys are switched off around the transaction (SQLite ignores `PRAGMA foreign_keys`
 * inside one, and Prisma's table redefinitions DROP referenced tables, which with enforcement on
 * would cascade-delete child rows); `PRAGMA foreign_key_check` must then be clean before COMMIT.
 */
function applyOne(db: BetterSqlite3.Database, migration: MigrationFile): boolean {
  const enforcing = db.pragma('foreign_keys', { simple: true }) === 1;
  if (enforcing) db.pragma('foreign_keys = OFF');
  try {
    return immediate(db, () => {
      const records = readRecords(db, migration.name).filter((r) => r.rolled_back_at === null);
      if (records.some(isFailed)) {
        throw new Error(`${MIGRATIONS_TABLE} records a failed attempt of ${migration.name}`);
      }
      if (records.length > 0) {
        if (!records.every((r) => checksumMatches(migration.sql, r.checksum))) {
          throw new Error(`migration.sql of ${migration.name} differs from the applied script (checksum)`);
        }
        return false;
      }
      const startedAt = Date.now();
      try {
        db.exec(migration.sql);
      } catch (err) {
        throw new Error(`Migration ${migration.name} failed and was rolled back: ${(err as Error).message}`, {
          cause: err,
        });
      }
      const violations = db.pragma('foreign_key_check') as unknown[];
      if (violations.length > 0) {
        throw new Error(`Migration ${migration.name} was rolled back: it leaves ${violations.length} foreign key violation(s)`);
      }
      db.prepare(
        `INSERT INTO "${MIGRATIONS_TABLE}"
           (id, checksum, finished_at, migration_name, logs, rolled_back_at, started_at, applied_steps_count)
         VALUES (?, ?, ?, ?, NULL, NULL, ?, 1)`,
      ).run(randomUUID(), migration.checksum, Date.now(), migration.name, startedAt);
      return true;
    });
  } finally {
    if (enforcing) db.pragma('foreign_keys = ON');
  }
}

/**
 * Brings `db` up to date with the migrations in `options.migrationsDir` (default MIGRATIONS_DIR).
 * Call before opening Prisma on the same file; `db` must have no open transaction.
 *
 * Each pending migration (sorted by folder name) runs with its history row in one
 * BEGIN IMMEDIATE transaction: it is applied completely or not at all, and two processes starting
 * together serialize on SQLite's write lock (the loser finds the row and skips). A failing script
 * is rolled back and leaves no history row (Prisma would record a failed row; with a transaction
 * there is nothing to repair).
 *
 * @returns `{ applied }`: the migration names applied by this call.
 * @throws Error when the history records a failed migration, when an applied migration's
 *   migration.sql no longer matches its checksum, when the database has tables but no history,
 *   or when a migration's SQL fails (message names the migration; that migration is rolled back,
 *   earlier ones in the same call stay applied).
 */
export function applyMigrations(db: BetterSqlite3.Database, options: ApplyMigrationsOptions = {}): ApplyMigrationsResult {
  if (db.inTransaction) throw new Error('applyMigrations needs a connection without an open transaction');
  const log: MigrationLog = options.log ?? (() => {});
  const files = readMigrations(options.migrationsDir ?? MIGRATIONS_DIR);

  ensureMigrationsTable(db);
  const records = readRecords(db);
  checkHistory(records, files, log);

  const done = new Set(records.filter((r) => r.rolled_back_at === null).map((r) => r.migration_name));
  const applied: string[] = [];
  for (const file of files) {
    if (done.has(file.name)) continue;
    const started = performance.now();
    if (applyOne(db, file)) {
      applied.push(file.name);
      log('applied migration', { migration: file.name, ms: Math.round(performance.now() - started) });
    }
  }
  return { applied };
}
