/**
 * Applies the committed SQL migrations (`prisma/migrations/<name>/migration.sql`) when the service
 * starts, with Prisma's own schema engine (`applyMigrations`, the command behind
 * `prisma migrate deploy`; wasm build, see ./schema-engine.ts). The engine writes
 * `_prisma_migrations` itself, so the Prisma CLI and this service can take turns on one file.
 *
 * What the engine does on SQLite, and what we add (each checked in test/platform/
 * migrations.test.ts):
 * - it creates `_prisma_migrations` on an empty database and refuses a non-empty database without
 *   that table (P3005: baseline first);
 * - it runs each pending migration.sql outside any transaction, as `migrate deploy` does, so
 *   Prisma's `PRAGMA foreign_keys=OFF` table redefinitions work. A failing script is NOT rolled
 *   back: statements before the failure stay, and its history row stays with `finished_at` NULL.
 *   Every later start refuses (P3009) until the database is repaired and the row is resolved
 *   (resolveMigration below, or `prisma migrate resolve`). We name the failed migration in the
 *   error; the engine's message only quotes SQLite;
 * - it takes NO lock on SQLite (Prisma's advisory locks are for Postgres and MySQL). Without one,
 *   starters racing on a fresh file crash on SQLITE_BUSY (seen: 3 of 4 processes, and concurrent
 *   calls in one process); and as it reads the history, inserts the row, then runs the script with
 *   no transaction around them, a loser that read the history before the winner's row would run
 *   the script again and record it as failed, blocking every later start. So we hold a lock
 *   around the whole run: the write lock (BEGIN IMMEDIATE) of a side SQLite file
 *   `<database>.migrate-lock`. Not the database's own write lock: the engine's connection must
 *   write while we hold it. The OS drops the lock when its process dies, so no lock goes stale;
 *   the empty file stays;
 * - it does not compare checksums (deploy never did: an edited migration.sql is ignored). We
 *   refuse edited applied migrations before applying, using the engine's own verdict
 *   (`diagnoseMigrationHistory`: lowercase hex sha256, LF and CRLF spellings accepted), as
 *   `migrate dev` would flag them.
 * Databases written by the earlier hand-written migrator (epoch-ms timestamps) are read unchanged.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import BetterSqlite3 from 'better-sqlite3';
import { migrationList, NO_FILTERS, readMigrations, SchemaEngineError, withEngine } from './schema-engine.js';

/** Absolute path of the committed migrations, `<repo>/prisma/migrations`. */
export const MIGRATIONS_DIR = fileURLToPath(new URL('../../prisma/migrations', import.meta.url));

/** Name of the history table Prisma Migrate reads and writes. */
export const MIGRATIONS_TABLE = '_prisma_migrations';

export type MigrationLog = (msg: string, fields?: object) => void;

export interface MigrateDatabaseOptions {
  /** Folder holding `<name>/migration.sql` folders and migration_lock.toml; default MIGRATIONS_DIR. */
  migrationsDir?: string;
  /** Called once per applied migration, and when waiting for another process's migration lock. */
  log?: MigrationLog | undefined;
  /** Milliseconds to wait for another process that is migrating the same file; default 120000. */
  lockTimeoutMs?: number;
  /** Milliseconds the engine waits for a database lock held by a running service; default 5000. */
  busyTimeoutMs?: number;
}

export interface MigrateDatabaseResult {
  /** Names of the migrations applied by this call, in order; empty when up to date. */
  applied: string[];
}

/** Path of the side file whose write lock serializes migration runs on `path`. */
export function migrationLockPath(path: string): string {
  return `${path}.migrate-lock`;
}

/**
 * Takes the write lock of the lock file, polling so the event loop keeps running (a blocking
 * busy timeout would stall a second caller in the same process while the first one's engine
 * awaits). Resolves to the release function.
 */
async function acquireLock(lockPath: string, timeoutMs: number, log: MigrationLog): Promise<() => void> {
  const lock = new BetterSqlite3(lockPath, { timeout: 0 });
  const deadline = Date.now() + timeoutMs;
  let waiting = false;
  for (;;) {
    try {
      lock.exec('BEGIN IMMEDIATE');
      return () => {
        lock.exec('ROLLBACK');
        lock.close();
      };
    } catch (err) {
      const busy = (err as { code?: unknown }).code === 'SQLITE_BUSY';
      if (!busy || Date.now() >= deadline) {
        lock.close();
        throw busy ? new Error(`Timed out after ${timeoutMs} ms waiting for another process to finish migrating (${lockPath})`) : err;
      }
    }
    if (!waiting) log('waiting for another process to finish migrating', { lock: lockPath });
    waiting = true;
    await sleep(25);
  }
}

/** Runs `fn` while holding the migration lock of the database file at `path`. */
async function withMigrationLock<T>(path: string, options: MigrateDatabaseOptions, fn: () => Promise<T>): Promise<T> {
  mkdirSync(dirname(path), { recursive: true });
  const release = await acquireLock(migrationLockPath(path), options.lockTimeoutMs ?? 120_000, options.log ?? (() => {}));
  try {
    return await fn();
  } finally {
    release();
  }
}

/** Whether the database file exists and has the history table (the engine errors without it). */
function hasHistoryTable(path: string, busyTimeoutMs: number): boolean {
  if (!existsSync(path)) return false;
  const db = new BetterSqlite3(path, { readonly: true, timeout: busyTimeoutMs });
  try {
    return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(MIGRATIONS_TABLE) !== undefined;
  } finally {
    db.close();
  }
}

/** Lowercase hex SHA-256 of a migration script: the engine's checksum (LF and CRLF spellings both accepted). */
function checksumsOf(sql: string): string[] {
  const lf = sql.replace(/\r\n/g, '\n');
  const crlf = lf.replace(/\n/g, '\r\n');
  return [sql, lf, crlf].map((text) => createHash('sha256').update(text, 'utf8').digest('hex'));
}

/**
 * The fast path of every start after the first: true when the history table records every
 * committed migration as finished with its committed checksum and records no failed one. Read-only
 * and without the engine, so a second process (the CLI beside a running server, whose connection
 * may hold SQLite's write lock) opens the database without waiting for any lock; anything else
 * (pending, edited or failed migrations) takes the locked path below, which explains itself.
 */
function upToDate(path: string, migrationsDir: string, busyTimeoutMs: number): boolean {
  if (!hasHistoryTable(path, busyTimeoutMs)) return false;
  const db = new BetterSqlite3(path, { readonly: true, timeout: busyTimeoutMs });
  let rows: { migration_name: string; checksum: string; finished_at: unknown; rolled_back_at: unknown }[];
  try {
    rows = db.prepare(`SELECT migration_name, checksum, finished_at, rolled_back_at FROM "${MIGRATIONS_TABLE}"`).all() as typeof rows;
  } finally {
    db.close();
  }
  if (rows.some((r) => r.finished_at === null && r.rolled_back_at === null)) return false;
  const applied = new Map(
    rows.filter((r) => r.finished_at !== null && r.rolled_back_at === null).map((r) => [r.migration_name, r.checksum]),
  );
  return readMigrations(migrationsDir).every((m) => {
    const stored = applied.get(m.name);
    return stored !== undefined && checksumsOf(m.sql).includes(stored.toLowerCase());
  });
}

/**
 * Brings the SQLite file at `path` (absolute; created when missing) up to date with the migrations
 * in `options.migrationsDir`, as `prisma migrate deploy` would, plus a lock and a checksum check
 * (see the file header). Call before opening Prisma on the file; safe to call from several
 * processes at once (they serialize; later ones apply nothing).
 *
 * @returns `{ applied }`: the migration names this call applied, in order.
 * @throws Error naming the migrations when an applied migration.sql was edited afterwards, when
 *   the history records failed migrations (P3009), or when a migration's SQL fails (that migration
 *   is then recorded as failed and left half-applied; earlier ones in the same call stay applied).
 * @throws SchemaEngineError P3005 when the database has tables but no history (baseline first).
 * @throws Error on lock timeout (`lockTimeoutMs`).
 */
export async function migrateDatabase(path: string, options: MigrateDatabaseOptions = {}): Promise<MigrateDatabaseResult> {
  const log: MigrationLog = options.log ?? (() => {});
  const engineOptions = { databasePath: path, busyTimeoutMs: options.busyTimeoutMs ?? 5000 };
  const list = await migrationList(options.migrationsDir ?? MIGRATIONS_DIR);
  const diagnose = () =>
    withEngine(engineOptions, (engine) =>
      engine.diagnoseMigrationHistory({ migrationsList: list, optInToShadowDatabase: false, filters: NO_FILTERS }),
    );

  if (upToDate(path, options.migrationsDir ?? MIGRATIONS_DIR, engineOptions.busyTimeoutMs)) return { applied: [] };
  return withMigrationLock(path, options, async () => {
    if (hasHistoryTable(path, engineOptions.busyTimeoutMs)) {
      const { editedMigrationNames: edited, failedMigrationNames: failed } = await diagnose();
      if (failed.length > 0) {
        throw new Error(
          `Refusing to migrate (Prisma P3009): ${MIGRATIONS_TABLE} records failed migrations: ${failed.join(', ')}. ` +
            'Repair the database by hand, then mark each one resolved (resolveMigration: applied or rolled-back).',
        );
      }
      if (edited.length > 0) {
        throw new Error(
          `Refusing to migrate: migration.sql of already applied migrations was modified: ${edited.join(', ')} ` +
            `(checksum differs from ${MIGRATIONS_TABLE}). Restore the committed file; add a new migration instead.`,
        );
      }
    }
    const started = performance.now();
    let applied: string[];
    try {
      const output = await withEngine(engineOptions, (engine) => engine.applyMigrations({ migrationsList: list, filters: NO_FILTERS }));
      applied = output.appliedMigrationNames;
    } catch (err) {
      // Under our lock, a failed row now can only be the one this call just left.
      const failed = err instanceof SchemaEngineError && err.code !== 'P3005' ? await failedNames(diagnose) : [];
      if (failed.length === 0) throw err;
      throw new Error(
        `Migration ${failed.join(', ')} failed; ${MIGRATIONS_TABLE} records it as failed and, as SQLite migrations run ` +
          'without a transaction, statements before the failure stay applied. Later starts refuse until it is repaired ' +
          `and resolved. ${(err as Error).message}`,
        { cause: err },
      );
    }
    const ms = Math.round(performance.now() - started);
    for (const migration of applied) log('applied migration', { migration, ms });
    return { applied };
  });
}

/** Failed migration names per the engine; none when even that cannot be read. */
async function failedNames(diagnose: () => Promise<{ failedMigrationNames: string[] }>): Promise<string[]> {
  try {
    return (await diagnose()).failedMigrationNames;
  } catch {
    return [];
  }
}

/**
 * Marks a migration resolved after a failure, like `prisma migrate resolve` (which cannot run
 * here: it downloads a native engine). `rolled-back`: the failed row stays as an audit record and
 * the (fixed) migration is applied again by the next migrateDatabase; `applied`: the database was
 * finished by hand, so the migration is recorded as applied without running it.
 * @throws SchemaEngineError when the migration is not in a state the engine can resolve (e.g.
 *   already applied, or not failed for `rolled-back`).
 */
export async function resolveMigration(
  path: string,
  migrationName: string,
  as: 'applied' | 'rolled-back',
  options: Pick<MigrateDatabaseOptions, 'migrationsDir' | 'lockTimeoutMs' | 'busyTimeoutMs'> = {},
): Promise<void> {
  const list = await migrationList(options.migrationsDir ?? MIGRATIONS_DIR);
  await withMigrationLock(path, options, () =>
    withEngine({ databasePath: path, busyTimeoutMs: options.busyTimeoutMs ?? 5000 }, async (engine) => {
      if (as === 'applied') await engine.markMigrationApplied({ migrationName, migrationsList: list });
      else await engine.markMigrationRolledBack({ migrationName });
    }),
  );
}
