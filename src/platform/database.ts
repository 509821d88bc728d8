/**
 * The database behind every module, chosen by DATABASE_URL: `file:` opens
 * SQLite (database-sqlite.ts), `postgres://`/`postgresql://` opens PostgreSQL
 * (database-postgres.ts). Either way the modules get one `Db` (the Prisma client type, same
 * models) and the same guarantees: migrations applied at open, write transactions serialized,
 * and a change counter that moves when another connection (another process or replica) commits,
 * so caches never serve what another writer changed.
 */

import type pg from 'pg';
import type { ChangeCounter, Db, Tx } from './database-types.js';
import type { DatabaseProvider } from './database-url.js';
import { databaseLocation, databaseTarget } from './database-url.js';

export { type ChangeCounter, ChangesUnknownError, type Db, type Tx } from './database-types.js';

/** Milliseconds a connection waits for a lock held by another connection (SQLite busy timeout, PostgreSQL lock_timeout). */
export const BUSY_TIMEOUT_MS = 5000;

export interface OpenDatabaseOptions {
  /** `file:<path>` (a relative path is relative to the project folder) or `postgres://...`. */
  databaseUrl: string;
  log?: (msg: string, fields?: object) => void;
  /** Called with every SQL statement Prisma sends; tests count them to catch N+1. */
  onQuery?: (sql: string) => void;
  /** Migrations folder; default: the provider's (migrations.ts migrationsDirOf). */
  migrationsDir?: string;
  /** false: open an already migrated database without running the schema engine. Default true. */
  migrate?: boolean;
}

export interface Database {
  prisma: Db;
  provider: DatabaseProvider;
  /** Where the data lives, safe to log: the SQLite file's absolute path, or the PostgreSQL URL without password. */
  path: string;
  close(): Promise<void>;
}

/**
 * Absolute file path of a `file:` URL (`file:./data/portcullis.db` -> `<project>/data/portcullis.db`).
 * Relative paths resolve against the project folder (the one holding package.json), not the
 * working directory: `npm start` always runs there, so the server, `npm run cli` and
 * `npx portcullis` started from any other folder open the same file (a CLI run
 * from a subfolder must not silently create a second database). For a PostgreSQL URL: the URL without its
 * password (database-url.ts databaseLocation), which the CLI prints.
 */
export function databasePath(databaseUrl: string): string {
  return databaseLocation(databaseUrl);
}

interface Registered {
  provider: DatabaseProvider;
  counter: ChangeCounter | undefined;
  changesKnown: (() => boolean) | undefined;
  catchUp: (() => Promise<void>) | undefined;
  takeTargeted: (() => number[]) | undefined;
  appliedRevision: (() => number | undefined) | undefined;
  pool: pg.Pool | undefined;
  listeners: QueryTimeListener[];
  /** Told of every change version PostgreSQL announces (watchVersions). */
  versionListeners: Set<() => void>;
}

const registry = new WeakMap<object, Registered>();

/**
 * Opens (creating a SQLite file when missing) and migrates the database.
 * @throws Error when a migration fails or an applied migration was edited afterwards; for
 *   PostgreSQL also when the server cannot be reached.
 */
export async function openDatabase(options: OpenDatabaseOptions): Promise<Database> {
  const target = databaseTarget(options.databaseUrl);
  const listeners: QueryTimeListener[] = [];
  const versionListeners = new Set<() => void>();
  const onQuery = options.onQuery;
  const providerOptions = {
    busyTimeoutMs: BUSY_TIMEOUT_MS,
    migrate: options.migrate !== false,
    migrationsDir: options.migrationsDir,
    log: options.log,
    onQuery: (sql: string, ms: number) => {
      onQuery?.(sql);
      for (const listener of listeners) listener(ms);
    },
    onVersion: () => {
      for (const listener of versionListeners) listener();
    },
  };
  // Each provider's module (its Prisma client, driver and adapter) is loaded only when that
  // provider is used: a SQLite service never loads node-postgres.
  const opened =
    target.provider === 'sqlite'
      ? await (await import('./database-sqlite.js')).openSqliteDatabase(target.path, providerOptions)
      : await (await import('./database-postgres.js')).openPostgresDatabase(target.url, providerOptions);
  registry.set(opened.prisma, {
    provider: target.provider,
    counter: opened.changeCounter,
    changesKnown: opened.changesKnown,
    catchUp: opened.catchUp,
    takeTargeted: opened.takeTargeted,
    appliedRevision: opened.appliedRevision,
    pool: opened.pool,
    listeners,
    versionListeners,
  });
  return {
    prisma: opened.prisma,
    provider: target.provider,
    path: databaseLocation(options.databaseUrl),
    close: () => opened.close(),
  };
}

/** Told the duration of each SQL statement Prisma sent, in milliseconds (fractional). */
export type QueryTimeListener = (ms: number) => void;

/**
 * Calls `listener` with the duration of every statement `db` sends from now on (Prisma's query
 * events, timed around the driver call). No-op for a client not opened by `openDatabase`.
 */
export function observeQueryTime(db: Db, listener: QueryTimeListener): void {
  registry.get(db)?.listeners.push(listener);
}

/**
 * The change counter of a client opened by `openDatabase` (undefined for any other client, e.g.
 * a test's extended client): two different readings mean another connection (another process,
 * replica, or another client in this one) committed in between. No SQL on the request path:
 * SQLite reads an in-memory pragma, PostgreSQL the change feed's count (change-feed.ts), which
 * throws ChangesUnknownError while it cannot know.
 */
export function changeCounterOf(db: Db): ChangeCounter | undefined {
  return registry.get(db)?.counter;
}

/**
 * The catch-up of a client opened by `openDatabase` on PostgreSQL: resolves once the change
 * counter reflects every commit made before the call (one read of the change version, shared by
 * concurrent callers: version-reader.ts); undefined on SQLite, whose counter is exact at every
 * reading, and for other clients.
 * @throws ChangesUnknownError (from the returned function) when the version cannot be read.
 */
export function catchUpOf(db: Db): (() => Promise<void>) | undefined {
  return registry.get(db)?.catchUp;
}

/**
 * The users named by other connections' targeted commits since the last call, for a client
 * opened by `openDatabase` on PostgreSQL (change-feed.ts "reach"); undefined elsewhere.
 */
export function targetedChangesOf(db: Db): (() => number[]) | undefined {
  return registry.get(db)?.takeTargeted;
}

/** Announced reaches longer than this many users are announced as reaching everyone. */
const MAX_ANNOUNCED_USERS = 200;

/**
 * Announces, inside write transaction `tx` of client `db` and before its first change, that the
 * transaction can reach the permissions of users `userIds` only: on PostgreSQL the change
 * notification then names them (change-feed.ts "reach"), so other replicas drop those users'
 * cached permissions only; one statement. Nothing on SQLite, or past MAX_ANNOUNCED_USERS users.
 */
export async function announceReach(db: Db, tx: Pick<Tx, '$queryRaw'>, userIds: readonly number[]): Promise<void> {
  if (registry.get(db)?.provider !== 'postgresql' || userIds.length === 0 || userIds.length > MAX_ANNOUNCED_USERS) return;
  const reach = `users=${userIds.map((id) => Math.trunc(id)).join(',')}`;
  await tx.$queryRaw`SELECT set_config('portcullis.reach', ${reach}, true)`;
}

/**
 * Calls `listener` whenever PostgreSQL announces a new change version (a commit of any
 * connection, this process's included); never on SQLite, whose commits announce nothing. Returns
 * the function that stops it.
 */
export function watchVersions(db: Db, listener: () => void): () => void {
  const listeners = registry.get(db)?.versionListeners;
  listeners?.add(listener);
  return () => listeners?.delete(listener);
}

/**
 * PostgreSQL: the change-record revision up to which the client's listener knows every change
 * applied (its catch-up mark, change-reach.ts); undefined on SQLite and before the first read.
 */
export function appliedRevisionOf(db: Db): number | undefined {
  return registry.get(db)?.appliedRevision?.();
}

/**
 * False while the client's change counter cannot tell whether other replicas committed changes
 * (PostgreSQL: the change feed's listener is lost and not yet caught up, change-feed.ts), when
 * requests answer 503 DATABASE_UNAVAILABLE; the readiness probe answers 503 then too. Always true
 * on SQLite and for clients not opened by `openDatabase`.
 */
export function changesKnown(db: Db): boolean {
  return registry.get(db)?.changesKnown?.() ?? true;
}

/**
 * The node-postgres pool a PostgreSQL client opened by `openDatabase` runs on (undefined on
 * SQLite), for the few stores that keep shared state in the same database outside Prisma's models
 * (the login counters, rate-limiter-flexible's RateLimiterPostgres). Ended by `close()`.
 */
export function postgresPoolOf(db: Db): pg.Pool | undefined {
  return registry.get(db)?.pool;
}

/**
 * The provider of a client opened by `openDatabase` (`sqlite` for any other client), for the few
 * statements written per provider (raw SQL, text search).
 */
export function providerOf(db: Db): DatabaseProvider {
  return registry.get(db)?.provider ?? 'sqlite';
}

/**
 * True when a Prisma or driver error means the database stayed locked past the busy timeout:
 * SQLite's SQLITE_BUSY* (which the adapter reports as P1008 "socket timeout"); PostgreSQL's
 * lock_timeout (SQLSTATE 55P03), a deadlock or serialization failure (40P01, 40001: Prisma
 * P2034), or a transaction that could not even start in time (P2028: every pooled connection
 * busy), all of which a retry resolves.
 */
export function isDatabaseBusy(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (code === 'P1008' || code === 'P2034' || code === 'P2028') return true;
  return typeof message === 'string' && /SQLITE_BUSY|database is locked|55P03|lock timeout|40P01|deadlock detected/.test(message);
}

/** True when a Prisma error is a unique-constraint violation (P2002). */
export function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'P2002';
}

/** True when the database answers `SELECT 1` within `timeoutMs` milliseconds. Never throws. */
export async function pingDatabase(db: Db, timeoutMs: number): Promise<boolean> {
  const signal = AbortSignal.timeout(timeoutMs);
  return new Promise<boolean>((resolve) => {
    signal.addEventListener('abort', () => resolve(false), { once: true });
    db.$queryRaw`SELECT 1`.then(
      () => resolve(!signal.aborted),
      () => resolve(false),
    );
  });
}

/**
 * Most parent rows to load in one query that also loads a relation. Prisma binds at most 999
 * values per SQLite statement and does not split the `IN (...)` over parent ids it sends for a
 * relation loaded with `orderBy` (nor a top-level `IN` list under `orderBy`): past 999 it
 * throws P2029 "The query parameter limit supported by your database is exceeded", a 500.
 * PostgreSQL allows 65535 bind values; one limit, the smaller, serves both.
 */
export const MAX_IDS_PER_QUERY = 500;

/**
 * Loads rows by id in slices of at most MAX_IDS_PER_QUERY ids, one query each, and concatenates
 * the results in slice order (so ids sorted the way `load` sorts come back in that order).
 * `load` receives one slice and must bind at most that many values plus a few of its own.
 */
export async function loadInChunks<T>(ids: readonly number[], load: (chunk: number[]) => Promise<T[]>): Promise<T[]> {
  const rows: T[] = [];
  for (let start = 0; start < ids.length; start += MAX_IDS_PER_QUERY) {
    rows.push(...(await load(ids.slice(start, start + MAX_IDS_PER_QUERY))));
  }
  return rows;
}
