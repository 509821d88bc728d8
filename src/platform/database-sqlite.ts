/**
 * SQLite behind the Db type (database.ts): creates the file's directory, switches it to WAL,
 * applies pending migrations, then opens Prisma on the better-sqlite3 driver adapter.
 *
 * Two properties the access kernel relies on:
 * - write transactions take SQLite's write lock up front (`BEGIN IMMEDIATE`, waiting at most
 *   BUSY_TIMEOUT_MS), so a transaction never reads a snapshot it can no longer upgrade: two
 *   processes writing at once queue instead of failing with SQLITE_BUSY_SNAPSHOT (Prisma P1008);
 * - the change counter reads `PRAGMA data_version` on Prisma's own connection, straight from the
 *   driver (no SQL log line): it changes after every commit made by any other connection (the
 *   CLI, a second server, a test writing with its own client) and never for this connection's
 *   own commits, so caches see foreign writes without dropping entries for their own.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import type { SqlDriverAdapter, SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import BetterSqlite3 from 'better-sqlite3';
import { PrismaClient } from '../generated/prisma/client.js';
import type { ChangeCounter, OpenedClient, ProviderOpenOptions } from './database-types.js';
import { migrateDatabase } from './migrations.js';
import { queryCompilerOverride } from './query-compiler-wasm.js';

/**
 * SQLite's `synchronous` on the service's connection, said here rather than left to the build
 * (better-sqlite3 is compiled with SQLITE_DEFAULT_WAL_SYNCHRONOUS=1, SQLite's own default is
 * FULL). NORMAL in WAL mode: a commit is appended to the WAL without an fsync, the WAL is
 * fsynced at each checkpoint. A crash of the process or of the operating system's processes loses
 * nothing; the database is never corrupted; only a power loss (or kernel crash) can roll back the
 * transactions committed since the last checkpoint. FULL fsyncs the WAL at every commit:
 * measured on the benchmark machine 0.75 ms per commit against 0.007 ms (better-sqlite3, 200
 * single-row commits), and on a disk without a write cache several milliseconds, the whole write
 * budget of a request. SQLite's documentation recommends NORMAL with WAL; PostgreSQL deployments
 * keep their server's own `synchronous_commit`.
 */
const SYNCHRONOUS = 'NORMAL';

/**
 * Opens (creating when missing) and migrates the SQLite file at `path` (absolute).
 * @throws Error when a migration fails or an applied migration was edited afterwards.
 */
export async function openSqliteDatabase(path: string, options: ProviderOpenOptions): Promise<OpenedClient> {
  mkdirSync(dirname(path), { recursive: true });
  const raw = new BetterSqlite3(path, { timeout: options.busyTimeoutMs });
  try {
    raw.pragma('journal_mode = WAL');
  } finally {
    raw.close();
  }
  if (options.migrate)
    await migrateDatabase(path, {
      ...(options.migrationsDir && { migrationsDir: options.migrationsDir }),
      ...(options.log && { log: options.log }),
      busyTimeoutMs: options.busyTimeoutMs,
    });

  let counter: ChangeCounter | undefined;
  const factory = new PrismaBetterSqlite3({ url: `file:${path}`, timeout: options.busyTimeoutMs });
  const adapter = immediateTransactions(factory, (client) => {
    client.pragma(`synchronous = ${SYNCHRONOUS}`);
    const dataVersion = client.prepare('PRAGMA data_version').pluck();
    counter = () => Number(dataVersion.get());
  });
  // Query events always on: they feed observeQueryTime (metrics) as well as onQuery.
  const prisma = new PrismaClient({
    adapter,
    log: [{ emit: 'event', level: 'query' }],
    // @ts-expect-error: Prisma's `__internal` option is accepted at run time but not typed (query-compiler-wasm.ts).
    __internal: queryCompilerOverride('sqlite'),
  });
  prisma.$on('query', (e) => options.onQuery(e.query, e.duration));
  await prisma.$connect();
  return { prisma, changeCounter: counter, close: () => prisma.$disconnect() };
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
  onClient(client);
  const statements = new StatementCache(client.prepare.bind(client));
  client.prepare = ((sql: string) => statements.get(sql === 'BEGIN' ? 'BEGIN IMMEDIATE' : sql)) as unknown as typeof client.prepare;
  return adapter;
}

/** Distinct SQL texts whose prepared statements are kept (Prisma's statements of this service number in the hundreds). */
export const STATEMENT_CACHE_SIZE = 500;

/** What the adapter does with a statement (read in @prisma/adapter-better-sqlite3 7): `bind(args)`, then these. */
interface BoundStatement {
  readonly reader: boolean;
  columns(): BetterSqlite3.ColumnDefinition[];
  raw(toggle?: boolean): BoundStatement;
  run(): BetterSqlite3.RunResult;
  all(): unknown[];
  get(): unknown;
}

/**
 * Prepared statements by SQL text, least recently used first out past STATEMENT_CACHE_SIZE
 * (uncached, the adapter prepared every statement anew, 4-7 % of the server's CPU on the scale
 * benchmark's requests). The adapter binds its arguments with `prepare(sql).bind(args)`, which
 * better-sqlite3 allows once per statement, so a cached statement is handed out as a view that
 * passes the arguments to each call instead: the same statement, the same results. A statement
 * runs to completion within one call (`run`, `all`: no iterator is ever left open), so one
 * statement serves every caller; SQLite prepares it again by itself after a schema change.
 */
class StatementCache {
  private readonly cache = new Map<string, BetterSqlite3.Statement>();

  constructor(private readonly prepare: (sql: string) => BetterSqlite3.Statement) {}

  get(sql: string): BoundStatement & { bind(args: unknown[]): BoundStatement } {
    let statement = this.cache.get(sql);
    if (statement) this.cache.delete(sql);
    else {
      statement = this.prepare(sql);
      if (this.cache.size >= STATEMENT_CACHE_SIZE) this.cache.delete(this.cache.keys().next().value as string);
    }
    this.cache.set(sql, statement);
    return { ...bound(statement, []), bind: (args: unknown[]) => bound(statement, args) };
  }
}

/** `statement` with `args` bound to each call, in object mode unless `raw` (module comment of StatementCache). */
function bound(statement: BetterSqlite3.Statement, args: unknown[], raw = false): BoundStatement {
  return {
    reader: statement.reader,
    columns: () => statement.columns(),
    raw: (toggle = true) => bound(statement, args, toggle),
    run: () => statement.run(args),
    all: () => statement.raw(raw).all(args),
    get: () => statement.raw(raw).get(args),
  };
}
