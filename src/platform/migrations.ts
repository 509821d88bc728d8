/**
 * Applies the committed SQL migrations (`prisma/migrations/<name>/migration.sql` for SQLite,
 * `prisma/migrations-postgresql/...` for PostgreSQL) when the service starts, with Prisma's own
 * schema engine (`applyMigrations`, the command behind `prisma migrate deploy`; wasm build, see
 * ./schema-engine.ts). The engine writes `_prisma_migrations` itself, so the Prisma CLI and this
 * service can take turns on one database.
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
 *   the empty file stays (PostgreSQL: a session advisory lock instead, migration-history.ts);
 * - it does not compare checksums (deploy never did: an edited migration.sql is ignored). We
 *   refuse edited applied migrations before applying, using the engine's own verdict
 *   (`diagnoseMigrationHistory`: lowercase hex sha256, LF and CRLF spellings accepted), as
 *   `migrate dev` would flag them.
 * Databases written by the earlier hand-written migrator (epoch-ms timestamps) are read unchanged.
 */
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { DatabaseProvider, DatabaseTarget } from './database-url.js';
import { type HistoryRow, MIGRATIONS_TABLE, type MigrationLog, migrationHistory } from './migration-history.js';
import { migrationList, readMigrations, SchemaEngineError, schemaFilters, withEngine } from './schema-engine.js';

export { MIGRATIONS_TABLE, type MigrationLog, migrationLockPath } from './migration-history.js';

/** Absolute path of the committed SQLite migrations, `<repo>/prisma/migrations`. */
export const MIGRATIONS_DIR = fileURLToPath(new URL('../../prisma/migrations', import.meta.url));

/**
 * Absolute path of the committed PostgreSQL migrations, `<repo>/prisma/migrations-postgresql`:
 * generated from the same data model (scripts/migration-create.ts writes both folders), plus the
 * hand-written change counter and its triggers (platform/change-feed.ts).
 */
export const POSTGRESQL_MIGRATIONS_DIR = fileURLToPath(new URL('../../prisma/migrations-postgresql', import.meta.url));

/** The committed migrations folder of `provider`. */
export function migrationsDirOf(provider: DatabaseProvider): string {
  return provider === 'sqlite' ? MIGRATIONS_DIR : POSTGRESQL_MIGRATIONS_DIR;
}

export interface MigrateDatabaseOptions {
  /** Folder holding `<name>/migration.sql` folders and migration_lock.toml; default: the provider's. */
  migrationsDir?: string;
  /** Called once per applied migration, and when waiting for another process's migration lock. */
  log?: MigrationLog | undefined;
  /** Milliseconds to wait for another process that is migrating the same database; default 120000. */
  lockTimeoutMs?: number;
  /** Milliseconds the engine waits for a database lock held by a running service; default 5000. */
  busyTimeoutMs?: number;
}

export interface MigrateDatabaseResult {
  /** Names of the migrations applied by this call, in order; empty when up to date. */
  applied: string[];
}

/** A SQLite file path (absolute) is the SQLite target; anything else is given as a target. */
function targetOf(database: string | DatabaseTarget): DatabaseTarget {
  return typeof database === 'string' ? { provider: 'sqlite', path: database } : database;
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
function upToDate(rows: HistoryRow[] | undefined, migrationsDir: string): boolean {
  if (rows === undefined) return false;
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
 * Brings the database up to date with the migrations in `options.migrationsDir` (default: the
 * provider's folder), as `prisma migrate deploy` would, plus a lock and a checksum check (see the
 * file header). `database` is a SQLite file path (absolute; created when missing) or a target.
 * Call before opening Prisma on it; safe to call from several processes at once (they
 * serialize; later ones apply nothing).
 *
 * @returns `{ applied }`: the migration names this call applied, in order.
 * @throws Error naming the migrations when an applied migration.sql was edited afterwards, when
 *   the history records failed migrations (P3009), or when a migration's SQL fails (that migration
 *   is then recorded as failed; on SQLite earlier statements of it stay applied, on PostgreSQL
 *   the script ran as one implicit transaction and left nothing; earlier migrations of the same
 *   call stay applied).
 * @throws SchemaEngineError P3005 when the database has tables but no history (baseline first).
 * @throws Error on lock timeout (`lockTimeoutMs`).
 */
export async function migrateDatabase(
  database: string | DatabaseTarget,
  options: MigrateDatabaseOptions = {},
): Promise<MigrateDatabaseResult> {
  const log: MigrationLog = options.log ?? (() => {});
  const target = targetOf(database);
  const busyTimeoutMs = options.busyTimeoutMs ?? 5000;
  const engineOptions = { target, busyTimeoutMs };
  const migrationsDir = options.migrationsDir ?? migrationsDirOf(target.provider);
  const history = migrationHistory(target, busyTimeoutMs);
  const list = await migrationList(migrationsDir);
  const diagnose = () =>
    withEngine(engineOptions, (engine) =>
      engine.diagnoseMigrationHistory({ migrationsList: list, optInToShadowDatabase: false, filters: schemaFilters(target.provider) }),
    );

  if (upToDate(await history.rows(), migrationsDir)) return { applied: [] };
  return history.withLock(options.lockTimeoutMs ?? 120_000, log, async () => {
    if ((await history.rows()) !== undefined) {
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
      const output = await withEngine(engineOptions, (engine) =>
        engine.applyMigrations({ migrationsList: list, filters: schemaFilters(target.provider) }),
      );
      applied = output.appliedMigrationNames;
    } catch (err) {
      // Under our lock, a failed row now can only be the one this call just left.
      const failed = err instanceof SchemaEngineError && err.code !== 'P3005' ? await failedNames(diagnose) : [];
      if (failed.length === 0) throw err;
      const leftover =
        target.provider === 'sqlite'
          ? 'as SQLite migrations run without a transaction, statements before the failure stay applied'
          : 'PostgreSQL rolled its statements back';
      throw new Error(
        `Migration ${failed.join(', ')} failed; ${MIGRATIONS_TABLE} records it as failed and ${leftover}. ` +
          `Later starts refuse until it is repaired and resolved. ${(err as Error).message}`,
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
 * finished by hand, so the migration is recorded as applied without running it. `database` as
 * for migrateDatabase.
 * @throws SchemaEngineError when the migration is not in a state the engine can resolve (e.g.
 *   already applied, or not failed for `rolled-back`).
 */
export async function resolveMigration(
  database: string | DatabaseTarget,
  migrationName: string,
  as: 'applied' | 'rolled-back',
  options: Pick<MigrateDatabaseOptions, 'migrationsDir' | 'lockTimeoutMs' | 'busyTimeoutMs'> = {},
): Promise<void> {
  const target = targetOf(database);
  const busyTimeoutMs = options.busyTimeoutMs ?? 5000;
  const list = await migrationList(options.migrationsDir ?? migrationsDirOf(target.provider));
  await migrationHistory(target, busyTimeoutMs).withLock(
    options.lockTimeoutMs ?? 120_000,
    () => undefined,
    () =>
      withEngine({ target, busyTimeoutMs }, async (engine) => {
        if (as === 'applied') await engine.markMigrationApplied({ migrationName, migrationsList: list });
        else await engine.markMigrationRolledBack({ migrationName });
      }),
  );
}
