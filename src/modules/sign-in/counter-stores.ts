/**
 * Where the failed-login counters (throttle.ts) live, by database (so a lock
 * earned through one replica holds on all of them):
 * - PostgreSQL, where several replicas share one database: in that database, through
 *   rate-limiter-flexible's RateLimiterPostgres on the pool Prisma runs on. Its consume, reward
 *   and delete are each one statement (`INSERT ... ON CONFLICT DO UPDATE ... RETURNING`), atomic
 *   per key across every replica. The library creates its table, LOGIN_COUNTERS_TABLE
 *   (`CREATE TABLE IF NOT EXISTS`), outside the
 *   migrations: no model reads it, and the change feed's triggers do not watch it, so counting
 *   a login attempt never invalidates any replica's permission cache. Expiry uses each replica's
 *   clock (`Date.now()`), so replicas' clocks must agree to within a small part of the window
 *   (NTP does). Two processes creating it at once can still collide inside PostgreSQL on the
 *   table's row type: the library forgives that as 23505, but PostgreSQL 18 reports it as 42710
 *   (`type "..." already exists`), which the first login attempt then answered as a 500 (seen
 *   in `npm run test:postgres`). Either code means another process created the table: the
 *   limiter is then made again, told the table exists (TABLE_CREATED_BY_ANOTHER).
 * - SQLite: in this process's memory. SQLite serves one instance (README "PostgreSQL"); several
 *   servers on one file are not a supported production set-up. Counting there in the file would
 *   also be a commit by a second connection, which moves `PRAGMA data_version` and so would drop
 *   the permission cache at every login attempt, a cost an attacker could impose at will.
 */
import { RateLimiterPostgres } from 'rate-limiter-flexible';
import { type Db, postgresPoolOf } from '../../platform/database.js';
import { type CounterStore, memoryCounters } from './throttle.js';

/** The table RateLimiterPostgres keeps the login counters in (key, points, expire). */
export const LOGIN_COUNTERS_TABLE = 'portcullis_login_counters';

/** PostgreSQL's codes for "another session created this table (or its row type) at the same time". */
const TABLE_CREATED_BY_ANOTHER = new Set(['23505', '42710', '42P07']);

/** The counter store for `db`: the database's own on PostgreSQL, memory on SQLite (module comment). */
export function counterStoreFor(db: Db): CounterStore {
  const pool = postgresPoolOf(db);
  if (!pool) return memoryCounters;
  return {
    shared: true,
    limiter: ({ keyPrefix, points, durationSeconds }) =>
      new Promise((resolve, reject) => {
        const options = {
          storeClient: pool,
          storeType: 'pool',
          tableName: LOGIN_COUNTERS_TABLE,
          keyPrefix,
          points,
          duration: durationSeconds,
        };
        // The callback runs once the table exists (or its creation failed), never synchronously here.
        const limiter: RateLimiterPostgres = new RateLimiterPostgres(options, (error?: unknown) => {
          if (!error) resolve(limiter);
          else if (TABLE_CREATED_BY_ANOTHER.has(String((error as { code?: unknown }).code))) {
            resolve(new RateLimiterPostgres({ ...options, tableCreated: true }));
          } else reject(error);
        });
      }),
  };
}
