/**
 * Creates the next migration from the difference between the committed migrations and
 * prisma/schema.prisma, offline (Prisma's wasm schema engine, see src/platform/schema-engine.ts).
 *
 *   npm run db:migration -- <name>      (or: npx tsx scripts/migration-create.ts <name>)
 *
 * Writes prisma/migrations/<YYYYMMDDHHMMSS UTC>_<name>/migration.sql, and migration_lock.toml
 * when missing, in Prisma's layout. Prints "no changes" and writes nothing when migrations and
 * schema already agree. Exits 1 with a message on any failure.
 */
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { MIGRATIONS_DIR } from '../src/platform/migrations.js';
import {
  diffMigrationsToSchema,
  MIGRATION_LOCK_CONTENT,
  MIGRATION_LOCK_FILE,
  readMigrations,
  SCHEMA_PATH,
} from '../src/platform/schema-engine.js';

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

async function main(argv: string[]): Promise<void> {
  const [rawName, ...rest] = argv;
  if (rawName === undefined || rest.length > 0) {
    throw new Error('usage: npm run db:migration -- <name>');
  }
  const name = slug(rawName);
  if (name === '') throw new Error(`migration name "${rawName}" has no letters or digits`);

  const sql = await diffMigrationsToSchema({ schemaPath: SCHEMA_PATH, migrationsDir: MIGRATIONS_DIR });
  if (sql === '') {
    console.log('no changes');
    return;
  }

  const folder = `${timestamp(new Date())}_${name}`;
  const last = readMigrations(MIGRATIONS_DIR).at(-1)?.name;
  if (last !== undefined && folder <= last) {
    throw new Error(`new migration ${folder} would not sort after the latest one, ${last}; check the clock`);
  }

  await mkdir(MIGRATIONS_DIR, { recursive: true });
  const lockPath = join(MIGRATIONS_DIR, MIGRATION_LOCK_FILE);
  if (!existsSync(lockPath)) await writeFile(lockPath, MIGRATION_LOCK_CONTENT, 'utf8');

  const dir = join(MIGRATIONS_DIR, folder);
  await mkdir(dir); // fails if it exists: never overwrite a migration
  const file = join(dir, 'migration.sql');
  await writeFile(file, sql, 'utf8');
  console.log(`created ${relative(process.cwd(), file)}`);
}

main(process.argv.slice(2)).catch((err: unknown) => {
  console.error(`migration-create: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 1;
});
