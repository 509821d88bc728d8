/**
 * The template database behind createTestApp (app.ts): one SQLite file migrated and seeded once,
 * then copied for every test app, so an app costs a file copy instead of the schema engine's
 * migrations and the seed's ~60 statements and password hash.
 *
 * The template's name is a hash of everything its content depends on: every file under
 * prisma/migrations, src/kernel/seed.ts, the built-in roles as the code defines them (so a
 * change to the catalogue they use counts too), the admin's login and password, and the password
 * hash parameters in force (the test cost or the real one, see argon2-test-cost.ts). A changed
 * migration, seed or role therefore builds a new template on the next run, never reuses an old
 * one. It is built on first use in each test process: into a private temporary file, then renamed
 * into place, which is atomic; two processes building at once write the same content, the last
 * rename wins, and a reader only ever sees a complete file. Templates live in the system's
 * temporary folder (`portcullis-test-templates/`), a few hundred KB each.
 */
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { BASIC_ROLES, FIXED_ROLES } from '../../src/kernel/builtin-roles.js';
import { MAIN_ORG_ID, MAIN_ORG_NAME, seed } from '../../src/kernel/seed.js';
import { openDatabase } from '../../src/platform/database.js';
import { MIGRATIONS_DIR } from '../../src/platform/migrations.js';
import { hashPassword } from '../../src/platform/passwords.js';

const SEED_SOURCE = new URL('../../src/kernel/seed.ts', import.meta.url);
const TEMPLATES_DIR = join(tmpdir(), 'portcullis-test-templates');

/** The admin the template's seed created. */
export interface TemplateAdmin {
  login: string;
  password: string;
}

/** Paths of every file under `dir`, sorted, relative to it. */
function filesUnder(dir: string, prefix = ''): string[] {
  return readdirSync(join(dir, prefix), { withFileTypes: true })
    .flatMap((entry) => {
      const path = join(prefix, entry.name);
      return entry.isDirectory() ? filesUnder(dir, path) : [path];
    })
    .sort();
}

/** `$argon2id$v=19$m=...,t=...,p=...` of a hash made now: which hash cost the seed writes. */
async function hashParameters(): Promise<string> {
  return (await hashPassword('template-probe')).split('$').slice(0, 4).join('$');
}

/** The template's key: a hash of what its content depends on (see the file comment). */
async function templateKey(admin: TemplateAdmin): Promise<string> {
  const hash = createHash('sha256');
  for (const file of filesUnder(MIGRATIONS_DIR))
    hash
      .update(file)
      .update('\0')
      .update(readFileSync(join(MIGRATIONS_DIR, file)));
  hash.update(readFileSync(SEED_SOURCE));
  hash.update(JSON.stringify({ BASIC_ROLES, FIXED_ROLES, MAIN_ORG_ID, MAIN_ORG_NAME, admin }));
  hash.update(await hashParameters());
  return hash.digest('hex').slice(0, 24);
}

/** Migrates and seeds a new database at `path`, then folds its WAL in, so the one file is the whole database. */
async function build(path: string, admin: TemplateAdmin): Promise<void> {
  const database = await openDatabase({ databaseUrl: `file:${path}` });
  try {
    await seed(database.prisma, { adminLogin: admin.login, adminPassword: admin.password });
  } finally {
    await database.close();
  }
  const raw = new BetterSqlite3(path);
  try {
    raw.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    raw.close();
  }
  for (const suffix of ['-wal', '-shm', '.migrate-lock']) rmSync(`${path}${suffix}`, { force: true });
}

const templates = new Map<string, Promise<string>>();

/** Path of the template for `admin`, built when missing (once per process and key). */
function templateFor(admin: TemplateAdmin): Promise<string> {
  const id = JSON.stringify(admin);
  let template = templates.get(id);
  if (!template) {
    template = (async () => {
      const path = join(TEMPLATES_DIR, `${await templateKey(admin)}.db`);
      if (existsSync(path) && statSync(path).size > 0) return path;
      mkdirSync(TEMPLATES_DIR, { recursive: true });
      const building = join(TEMPLATES_DIR, `building-${process.pid}-${Date.now()}`);
      mkdirSync(building);
      try {
        await build(join(building, 'template.db'), admin);
        renameSync(join(building, 'template.db'), path);
      } finally {
        rmSync(building, { recursive: true, force: true });
      }
      return path;
    })();
    templates.set(id, template);
    template.catch(() => templates.delete(id));
  }
  return template;
}

/**
 * Writes a migrated and seeded database (organization 1, built-in roles, `admin` as Service Admin)
 * to `path`, a file that must not exist yet: a copy of the template, built first when missing.
 */
export async function copyTemplateDatabase(path: string, admin: TemplateAdmin): Promise<void> {
  const template = await templateFor(admin);
  mkdirSync(dirname(path), { recursive: true });
  copyFileSync(template, path);
}
