/**
 * A second replica of a test app: its own database client (pool, and on PostgreSQL its own
 * change-feed listener) on the same database, and an app built on it, as two service processes
 * behind a load balancer. Close `db` after the test.
 */
import { type App, type AppDeps, createApp } from '../../src/app.js';
import { type Database, openDatabase } from '../../src/platform/database.js';
import { createLogger } from '../../src/platform/logger.js';
import type { TestApp } from './app.js';

/** Another replica of `first`; `onQuery` hears its statements, `deps` adds app dependencies (a clock, a verifier). */
export async function openReplica(
  first: TestApp,
  options: { onQuery?: (sql: string) => void; deps?: Partial<AppDeps> } = {},
): Promise<{ db: Database; app: App }> {
  const db = await openDatabase({
    databaseUrl: first.config.databaseUrl,
    migrate: false,
    ...(options.onQuery && { onQuery: options.onQuery }),
  });
  const app = createApp({ db: db.prisma, config: first.config, log: createLogger('silent'), ...options.deps });
  return { db, app };
}
