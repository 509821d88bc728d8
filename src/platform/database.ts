/**
 * Opens the SQLite database: creates its directory, switches it to WAL, applies pending
 * migrations, then returns a Prisma client on the better-sqlite3 driver adapter.
 *
 * Two properties the access kernel relies on (issue #10 item 3):
 * - write transactions take SQLite's write lock up front (`BEGIN IMMEDIATE`, waiting at most
 *   BUSY_TIMEOUT_MS), so a transaction never reads a snapshot it can no longer upgrade: two
 *   processes writing at once queue instead of failing with SQLITE_BUSY_SNAPSHOT (Prisma P1008);
 * - `changeCounterOf(db)` reads `PRAGMA data_version` on Prisma's own connection, straight from
 *   the driver (no SQL log line): it changes after every commit made by any other connection
 *   (the CLI, a second server, a test writing with its own client) and never for this
 *   connection's own commits, so caches see foreign writes without dropping entries for their own.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import type { SqlDriverAdapter, SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import BetterSqlite3 from 'better-sqlite3';
import { type Prisma, PrismaClient } from '../generated/prisma/client.js';
import { migrateDatabase } from './migrations.js';
import { projectPath } from './paths.js';

export type Db = PrismaClient;
export type Tx = Prisma.TransactionClient;

/** Milliseconds a connection waits for a lock held by another connection (SQLite busy timeout). */
export const BUSY_TIMEOUT_MS = 5000;

export interface OpenDatabaseOptions {
  /** `file:<path>`; a relative path is relative to the project folder (`databasePath`). */
  databaseUrl: string;
  log?: (msg: string, fields?: object) => void;
  /** Called with every SQL statement Prisma sends; tests count them to catch N+1. */
  onQuery?: (sql: string) => void;
  migrationsDir?: string;
  /** false: open an already migrated database without running the schema engine. Default true. */
  migrate?: boolean;
}

export interface Database {
  prisma: Db;
  /** Absolute path of the database file. */
  path: string;
  close(): Promise<void>;
}

/**
 * Absolute file path of a `file:` URL (`file:./data/portcullis.db` -> `<project>/data/portcullis.db`).
 * Relative paths resolve against the project folder (the one holding package.json), not the
 * working directory: `npm start` always runs there, so the server, `npm run cli` and
 * `npx portcullis` started from any other folder open the same file (issue #12 item 6: the CLI run
 * from a subfolder silently created a second database). The server and the CLI both open the
 * path this returns, and the CLI prints it.
 */
export function databasePath(databaseUrl: string): string {
  const raw = databaseUrl.replace(/^file:/, '').replace(/\?.*$/, '');
  return projectPath(raw);
}

/**
 * Opens (creating when missing) and migrates the database.
 * @throws Error when a migration fails or an applied migration was edited afterwards.
 */
export async function openDatabase(options: OpenDatabaseOptions): Promise<Database> {
  const path = databasePath(options.databaseUrl);
  mkdirSync(dirname(path), { recursive: true });

  const raw = new BetterSqlite3(path, { timeout: BUSY_TIMEOUT_MS });
  try {
    raw.pragma('journal_mode = WAL');
  } finally {
    raw.close();
  }
  if (options.migrate !== false)
    await migrateDatabase(path, {
      ...(options.migrationsDir && { migrationsDir: options.migrationsDir }),
      ...(options.log && { log: options.log }),
    });

  let counter: ChangeCounter | undefined;
  const adapter = immediateTransactions(new PrismaBetterSqlite3({ url: `file:${path}`, timeout: BUSY_TIMEOUT_MS }), (client) => {
    const dataVersion = client.prepare('PRAGMA data_version').pluck();
    counter = () => Number(dataVersion.get());
  });
  // Query events always on: they feed observeQueryTime (metrics) as well as onQuery.
  const prisma = new PrismaClient({ adapter, log: [{ emit: 'event', level: 'query' }] });
  const listeners: QueryTimeListener[] = [];
  queryTimeListeners.set(prisma, listeners);
  const onQuery = options.onQuery;
  (prisma as PrismaClient<'query'>).$on('query', (e) => {
    onQuery?.(e.query);
    for (const listener of listeners) listener(e.duration);
  });
  await prisma.$connect();
  if (counter) changeCounters.set(prisma, counter);
  return { prisma, path, close: () => prisma.$disconnect() };
}

/** Told the duration of each SQL statement Prisma sent, in milliseconds (fractional). */
export type QueryTimeListener = (ms: number) => void;

const queryTimeListeners = new WeakMap<object, QueryTimeListener[]>();

/**
 * Calls `listener` with the duration of every statement `db` sends from now on (Prisma's query
 * events, timed around the driver call). No-op for a client not opened by `openDatabase`.
 */
export function observeQueryTime(db: Db, listener: QueryTimeListener): void {
  queryTimeListeners.get(db)?.push(listener);
}

/** A number that changes whenever any connection commits to the database (`PRAGMA data_version`). */
export type ChangeCounter = () => number;

const changeCounters = new WeakMap<object, ChangeCounter>();

/**
 * The change counter of a client opened by `openDatabase` (undefined for any other client, e.g.
 * a test's extended client): two different readings mean another connection (another process,
 * or another client in this one) committed in between. One in-memory pragma, no SQL log line.
 */
export function changeCounterOf(db: Db): ChangeCounter | undefined {
  return changeCounters.get(db);
}

/**
 * Wraps the adapter factory so that its transactions begin with `BEGIN IMMEDIATE` instead of
 * the adapter's deferred `BEGIN` (it offers no option for it). A deferred transaction that reads
 * and then writes fails at once with SQLITE_BUSY_SNAPSHOT when another connection committed in
 * between, whatever the busy timeout; an immediate one waits for the lock (busy timeout) and
 * then reads the newest data. Every transaction of this service writes, so none is slowed.
 */
function immediateTransactions(
  factory: PrismaBetterSqlite3,
  onClient: (client: BetterSqlite3.Database) => void,
): SqlMigrationAwareDriverAdapterFactory {
  return {
    provider: factory.provider,
    adapterName: factory.adapterName,
    connect: async () => beginImmediate(await factory.connect(), onClient),
    connectToShadowDb: () => factory.connectToShadowDb(),
  };
}

function beginImmediate(adapter: SqlDriverAdapter, onClient: (client: BetterSqlite3.Database) => void): SqlDriverAdapter {
  const client = (adapter as unknown as { client?: BetterSqlite3.Database }).client;
  if (!client || typeof client.prepare !== 'function') {
    throw new Error('@prisma/adapter-better-sqlite3 changed: no `client` to begin immediate transactions on');
  }
  const prepare = client.prepare.bind(client);
  client.prepare = ((sql: string) => prepare(sql === 'BEGIN' ? 'BEGIN IMMEDIATE' : sql)) as typeof client.prepare;
  onClient(client);
  return adapter;
}

/**
 * True when a Prisma or driver error means SQLite stayed locked past the busy timeout
 * (SQLITE_BUSY*, which the adapter reports as P1008 "socket timeout").
 */
export function isDatabaseBusy(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  return code === 'P1008' || (typeof message === 'string' && /SQLITE_BUSY|database is locked/.test(message));
}

/** True when a Prisma error is a unique-constraint violation (P2002). */
export function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'P2002';
}

/** True when the database answers `SELECT 1` within `timeoutMs` milliseconds. Never throws. */
export async function pingDatabase(db: Db, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  try {
    return await Promise.race([db.$queryRaw`SELECT 1`.then(() => true), timeout]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Most parent rows to load in one query that also loads a relation. Prisma binds at most 999
 * values per SQLite statement and does not split the `IN (...)` over parent ids it sends for a
 * relation loaded with `orderBy` (nor a top-level `IN` list under `orderBy`): past 999 it
 * throws P2029 "The query parameter limit supported by your database is exceeded", a 500.
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
