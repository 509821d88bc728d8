/**
 * PostgreSQL behind the Db type (database.ts): applies pending migrations, then opens the
 * PostgreSQL Prisma client (generated from the same models) on @prisma/adapter-pg over a
 * node-postgres pool, with the change feed (change-feed.ts) as its change counter.
 *
 * The properties the access kernel relies on, as on SQLite (database-sqlite.ts):
 * - write transactions are serialized: each begins by taking one transaction-scoped advisory
 *   lock (WRITE_LOCK_KEY), PostgreSQL's stand-in for SQLite's `BEGIN IMMEDIATE`. Checks made
 *   inside a write (role version, last admin, the request fence) therefore see every write
 *   committed before it, by any replica, and no other write interleaves (READ COMMITTED would
 *   let two of them pass the same check). Lock waits end after the busy timeout (`lock_timeout`,
 *   SQLSTATE 55P03), which the kernel answers with 503 DATABASE_BUSY;
 * - after taking the lock the transaction reads the change version and hands it to the feed,
 *   so a write never acts on caches older than the newest commit (the NOTIFY may still be in
 *   flight); just before its COMMIT it reads it again, so the feed knows the version of its own
 *   commit (change-feed.ts `committed`);
 * - the counter ignores the commits of this client's own pool connections (by backend pid), as
 *   data_version ignores a connection's own commits: the kernel invalidates for those itself.
 */
import { PrismaPg } from '@prisma/adapter-pg';
import type { SqlDriverAdapter, SqlMigrationAwareDriverAdapterFactory, Transaction } from '@prisma/driver-adapter-utils';
import pg from 'pg';
import { PrismaClient } from '../generated/prisma-postgresql/client.js';
import { ChangeFeed } from './change-feed.js';
import type { Db, OpenedClient, ProviderOpenOptions } from './database-types.js';
import { migrateDatabase } from './migrations.js';

/** Key of the advisory lock every write transaction takes first ("pcwr"). */
export const WRITE_LOCK_KEY = 0x70637772;

/**
 * Milliseconds a write transaction may run once it holds the write lock (Prisma's interactive
 * `timeout`, 5 s by default), then it is rolled back (P2028: 503 DATABASE_BUSY) so the lock is
 * never held for good. Each statement is a round trip to the server and back through the
 * replica's event loop, shared with every request in flight: under load a large write (a
 * basic-role reset, hundreds of statements) took more than 5 s and answered 503 though it
 * progressed. While it runs, other writers wait up to the busy timeout and answer 503 then.
 */
export const WRITE_WORK_TIMEOUT_MS = 20_000;

/**
 * Pool settings for `url`: `lock_timeout` set to the busy timeout on every connection, merged
 * with any `options` the URL carries (node-postgres lets the URL's value win over ours).
 */
export function poolConfig(url: string, busyTimeoutMs: number): pg.PoolConfig {
  const parsed = new URL(url);
  const own = parsed.searchParams.get('options');
  parsed.searchParams.delete('options');
  return {
    connectionString: parsed.toString(),
    options: [own, `-c lock_timeout=${Math.max(1, Math.floor(busyTimeoutMs))}`].filter(Boolean).join(' '),
  };
}

/** The backend pid of a node-postgres client (set at connect; not in @types/pg). */
function backendPid(client: pg.PoolClient): number | undefined {
  const pid = (client as unknown as { processID?: unknown }).processID;
  return typeof pid === 'number' ? pid : undefined;
}

/**
 * Migrates (unless told not to) and opens the PostgreSQL database at `url`.
 * @throws Error when the server cannot be reached, a migration fails, or the change version
 *   cannot be read (migrations not applied).
 */
export async function openPostgresDatabase(url: string, options: ProviderOpenOptions): Promise<OpenedClient> {
  if (options.migrate)
    await migrateDatabase(
      { provider: 'postgresql', url },
      {
        ...(options.migrationsDir && { migrationsDir: options.migrationsDir }),
        ...(options.log && { log: options.log }),
        busyTimeoutMs: options.busyTimeoutMs,
      },
    );

  const own = new Set<number>();
  const pool = new pg.Pool(poolConfig(url, options.busyTimeoutMs));
  pool.on('connect', (client) => {
    const pid = backendPid(client);
    if (pid !== undefined) own.add(pid);
  });
  pool.on('remove', (client) => {
    const pid = backendPid(client);
    if (pid !== undefined) own.delete(pid);
  });
  // An idle connection that dies is dropped by the pool; the next query opens another.
  pool.on('error', () => undefined);

  let feed: ChangeFeed | undefined;
  try {
    feed = await ChangeFeed.open({ url, ownBackend: (pid) => own.has(pid), log: options.log, onVersion: options.onVersion });
    const changes = feed;
    const adapter = lockedWrites(new PrismaPg(pool), changes);
    // Query events always on: they feed observeQueryTime (metrics) as well as onQuery.
    // A transaction may wait for the write lock up to the busy timeout (lock_timeout answers
    // then); Prisma's own start limit (maxWait, 2 s by default) must not cut that wait short.
    // Once it holds the lock, its work may take WRITE_WORK_TIMEOUT_MS (Prisma's `timeout`).
    const prisma = new PrismaClient({
      adapter,
      log: [{ emit: 'event', level: 'query' }],
      transactionOptions: { maxWait: options.busyTimeoutMs + 1000, timeout: WRITE_WORK_TIMEOUT_MS },
    });
    prisma.$on('query', (e) => options.onQuery(e.query, e.duration));
    await prisma.$connect();
    return {
      prisma: prisma as unknown as Db,
      changeCounter: changes.counter,
      catchUp: () => changes.catchUp(),
      takeTargeted: () => changes.takeTargeted(),
      changesKnown: () => changes.isLive,
      appliedRevision: () => changes.appliedRevision,
      pool,
      close: async () => {
        await prisma.$disconnect();
        await changes.close();
        await pool.end();
      },
    };
  } catch (error) {
    await feed?.close();
    await pool.end().catch(() => undefined);
    throw error;
  }
}

/** What a write transaction tells the change feed (change-feed.ts `observe`, `committed`). */
type WriteVersions = Pick<ChangeFeed, 'observe' | 'committed'>;

/** The factory with every transaction starting by the write lock and a version read. */
function lockedWrites(factory: PrismaPg, versions: WriteVersions): SqlMigrationAwareDriverAdapterFactory {
  return {
    provider: factory.provider,
    adapterName: factory.adapterName,
    connect: async () => withWriteLock(await factory.connect(), versions),
    connectToShadowDb: () => factory.connectToShadowDb(),
  };
}

const raw = (sql: string) => ({ sql, args: [], argTypes: [] });
const VERSION_SQL = 'SELECT "version" FROM "_portcullis_change" WHERE "id" = 1';

/**
 * Every transaction takes the write lock and reads the version (`before`); its COMMIT (a
 * statement Prisma's transaction manager sends through `executeRaw`) is preceded by a read of the
 * version its own changes made (`after`), handed to the feed once the COMMIT succeeded.
 */
function withWriteLock(adapter: SqlDriverAdapter, versions: WriteVersions): SqlDriverAdapter {
  const start = adapter.startTransaction.bind(adapter);
  adapter.startTransaction = async (isolationLevel): Promise<Transaction> => {
    const tx = await start(isolationLevel);
    let before: number;
    try {
      await tx.executeRaw(raw(`SELECT pg_advisory_xact_lock(${WRITE_LOCK_KEY})`));
      // A statement of its own: READ COMMITTED takes its snapshot after the lock was granted.
      before = Number((await tx.queryRaw(raw(VERSION_SQL))).rows[0]?.[0]);
      versions.observe(before);
    } catch (error) {
      await tx.executeRaw(raw('ROLLBACK')).catch(() => undefined);
      await tx.rollback().catch(() => undefined);
      throw error;
    }
    const execute = tx.executeRaw.bind(tx);
    tx.executeRaw = async (query) => {
      if (query.sql !== 'COMMIT') return execute(query);
      const after = Number((await tx.queryRaw(raw(VERSION_SQL))).rows[0]?.[0]);
      const result = await execute(query);
      versions.committed(before, after);
      return result;
    };
    return tx;
  };
  return adapter;
}
