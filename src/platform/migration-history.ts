/**
 * What migrations.ts needs from each database besides Prisma's schema engine: a lock that
 * serializes migration runs of several processes, and a read-only look at `_prisma_migrations`
 * for the fast path of every start after the first. One implementation per provider.
 *
 * SQLite: the engine takes no lock there, so we hold the write lock (BEGIN IMMEDIATE) of a side
 * file `<database>.migrate-lock` (migrations.ts explains why not the database's own lock).
 * PostgreSQL: a session-level advisory lock on a connection of its own, held around the whole run
 * (the engine's own advisory lock covers only its apply step, not our checks before it).
 * Either lock is dropped by the server or the OS when its process dies, so none goes stale.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import BetterSqlite3 from 'better-sqlite3';
import type pg from 'pg';
import type { DatabaseTarget } from './database-url.js';

/** Name of the history table Prisma Migrate reads and writes. */
export const MIGRATIONS_TABLE = '_prisma_migrations';

/** Key of the advisory lock serializing migration runs on one PostgreSQL database ("pcmg"). */
const POSTGRES_MIGRATION_LOCK = 0x70636d67;

/** One row of `_prisma_migrations`, as read for the fast path. */
export interface HistoryRow {
  migration_name: string;
  checksum: string;
  finished_at: unknown;
  rolled_back_at: unknown;
}

export type MigrationLog = (msg: string, fields?: object) => void;

/** The lock and history reader of one database. */
export interface MigrationHistory {
  /** The history rows; undefined when the database (or its history table) does not exist yet. */
  rows(): Promise<HistoryRow[] | undefined>;
  /**
   * Runs `fn` holding the migration lock, waiting at most `timeoutMs` for another process.
   * @throws Error "Timed out after <ms> ms waiting for another process to finish migrating".
   */
  withLock<T>(timeoutMs: number, log: MigrationLog, fn: () => Promise<T>): Promise<T>;
}

/** Path of the side file whose write lock serializes migration runs on the SQLite file `path`. */
export function migrationLockPath(path: string): string {
  return `${path}.migrate-lock`;
}

function timedOut(timeoutMs: number, where: string): Error {
  return new Error(`Timed out after ${timeoutMs} ms waiting for another process to finish migrating (${where})`);
}

/**
 * Takes the write lock of the lock file, polling so the event loop keeps running (a blocking
 * busy timeout would stall a second caller in the same process while the first one's engine
 * awaits). Resolves to the release function.
 */
async function acquireFileLock(lockPath: string, timeoutMs: number, log: MigrationLog): Promise<() => void> {
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
        throw busy ? timedOut(timeoutMs, lockPath) : err;
      }
    }
    if (!waiting) log('waiting for another process to finish migrating', { lock: lockPath });
    waiting = true;
    await sleep(25);
  }
}

/** The SQLite file at `path` (absolute). */
function sqliteHistory(path: string, busyTimeoutMs: number): MigrationHistory {
  const read = <T>(fn: (db: BetterSqlite3.Database) => T): T => {
    const db = new BetterSqlite3(path, { readonly: true, timeout: busyTimeoutMs });
    try {
      return fn(db);
    } finally {
      db.close();
    }
  };
  return {
    async rows() {
      if (!existsSync(path)) return undefined;
      return read((db) => {
        const table = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(MIGRATIONS_TABLE);
        if (table === undefined) return undefined;
        return db.prepare(`SELECT migration_name, checksum, finished_at, rolled_back_at FROM "${MIGRATIONS_TABLE}"`).all() as HistoryRow[];
      });
    },
    async withLock(timeoutMs, log, fn) {
      mkdirSync(dirname(path), { recursive: true });
      const release = await acquireFileLock(migrationLockPath(path), timeoutMs, log);
      try {
        return await fn();
      } finally {
        release();
      }
    },
  };
}

/** Opens one connection to `url`, runs `fn`, closes it. */
async function withClient<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  // Loaded here, so a SQLite service never loads node-postgres.
  const { default: driver } = await import('pg');
  const client = new driver.Client({ connectionString: url });
  client.on('error', () => undefined); // a dropped connection fails the pending query instead
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The PostgreSQL database at `url` (its `public` schema, where Prisma keeps the history). */
function postgresHistory(url: string): MigrationHistory {
  return {
    rows: () =>
      withClient(url, async (client) => {
        const exists = await client.query<{ found: boolean }>('SELECT to_regclass($1) IS NOT NULL AS found', [
          `public."${MIGRATIONS_TABLE}"`,
        ]);
        if (!exists.rows[0]?.found) return undefined;
        const result = await client.query<HistoryRow>(
          `SELECT migration_name, checksum, finished_at, rolled_back_at FROM public."${MIGRATIONS_TABLE}"`,
        );
        return result.rows;
      }),
    withLock: (timeoutMs, log, fn) =>
      withClient(url, async (client) => {
        const free = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [POSTGRES_MIGRATION_LOCK]);
        if (!free.rows[0]?.locked) {
          log('waiting for another process to finish migrating', { lock: `pg_advisory_lock(${POSTGRES_MIGRATION_LOCK})` });
          // lock_timeout bounds the wait of the blocking form (SQLSTATE 55P03 when it expires).
          await client.query(`SET lock_timeout = ${Math.max(1, Math.floor(timeoutMs))}`);
          try {
            await client.query('SELECT pg_advisory_lock($1)', [POSTGRES_MIGRATION_LOCK]);
          } catch (err) {
            if ((err as { code?: unknown }).code === '55P03') throw timedOut(timeoutMs, 'PostgreSQL advisory lock');
            throw err;
          }
        }
        try {
          return await fn();
        } finally {
          await client.query('SELECT pg_advisory_unlock($1)', [POSTGRES_MIGRATION_LOCK]).catch(() => undefined);
        }
      }),
  };
}

/** The lock and history reader for `target`. */
export function migrationHistory(target: DatabaseTarget, busyTimeoutMs: number): MigrationHistory {
  return target.provider === 'sqlite' ? sqliteHistory(target.path, busyTimeoutMs) : postgresHistory(target.url);
}
