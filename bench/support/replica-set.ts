/**
 * Replicas of the service on one embedded PostgreSQL (scripts/embedded-postgres.ts), each started
 * as `npm start` starts it: three behind a balancer for the replica benchmark, two for the
 * benchmarks that time what one replica sees of another's writes (expiry, access-requests); and a
 * JSON caller for them.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres } from '../../scripts/embedded-postgres.js';
import { ROOT, type Started, startService } from './processes.js';

/** Running replicas, in start order; `databaseUrl` for clients of their database, `adminUrl` for the server's `postgres` database. */
export interface ReplicaSet {
  replicas: Started[];
  databaseUrl: string;
  adminUrl: string;
}

/** How many replicas of which checkout, with what settings beyond the database and the admin's password. */
export interface ReplicaOptions {
  count: number;
  /** The checkout started (default: this one). */
  root?: string;
  env?: Record<string, string>;
}

/**
 * An embedded PostgreSQL whose data lives in `dir`/data, with an empty database `bench`
 * (`server.url('bench')`). Stop it with `server.stop()`.
 */
export async function startBenchPostgres(dir: string): Promise<Awaited<ReturnType<typeof startEmbeddedPostgres>>> {
  const server = await startEmbeddedPostgres({ dataDir: join(dir, 'data'), password: randomBytes(12).toString('hex') });
  try {
    const admin = new pg.Client({ connectionString: server.url('postgres') });
    await admin.connect();
    await admin.query('CREATE DATABASE "bench"');
    await admin.end();
    return server;
  } catch (error) {
    await server.stop().catch(() => undefined);
    throw error;
  }
}

/**
 * Runs `body` with `options.count` replicas on a fresh database whose Service Admin `admin` has
 * `password`, then stops them and the database whatever happened. The first replica migrates and
 * seeds alone; the others start together on the migrated database. `name` names the temp folder.
 */
export async function withReplicas<T>(
  name: string,
  password: string,
  options: ReplicaOptions,
  body: (set: ReplicaSet) => Promise<T>,
): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), `portcullis-bench-${name}-`));
  chmodSync(dir, 0o755);
  const started: Started[] = [];
  const server = await startBenchPostgres(dir);
  try {
    const root = options.root ?? ROOT;
    const env = {
      DATABASE_URL: server.url('bench'),
      ADMIN_PASSWORD: password,
      PROVISIONING_PATH: join(dir, 'provisioning'),
      ...options.env,
    };
    started.push(await startService(root, env));
    const others = await Promise.allSettled(Array.from({ length: options.count - 1 }, () => startService(root, env)));
    for (const other of others) if (other.status === 'fulfilled') started.push(other.value);
    const failed = others.find((other) => other.status === 'rejected');
    if (failed) throw failed.reason;
    console.log(`PostgreSQL on 127.0.0.1:${server.port}; replicas of ${root} on ports ${started.map((r) => r.port).join(', ')}`);
    return await body({ replicas: [...started], databaseUrl: server.url('bench'), adminUrl: server.url('postgres') });
  } finally {
    for (const s of started.reverse()) await s.stop().catch(() => undefined);
    await server.stop().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The running pair: `a` takes the writes, `b` the reads; `databaseUrl` for clients of its own. */
export interface TwoReplicas {
  a: Started;
  b: Started;
  databaseUrl: string;
}

/** `withReplicas` with two replicas of this checkout, `a` (writes) and `b` (reads). */
export function withTwoReplicas<T>(name: string, password: string, body: (replicas: TwoReplicas) => Promise<T>): Promise<T> {
  return withReplicas(name, password, { count: 2 }, ({ replicas: [a, b], databaseUrl }) =>
    body({ a: a as Started, b: b as Started, databaseUrl }),
  );
}

/** `Basic` credentials of `login` and `password`. */
export const basicOf = (login: string, password: string) => `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}`;

/**
 * A JSON call to a replica on 127.0.0.1:`port` with `auth` as its Authorization: the parsed answer
 * ({} when empty). @throws Error naming the status and the start of the body for any status >= 300.
 */
export async function callJson(port: number, method: string, path: string, auth: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, {
    method,
    headers: { authorization: auth, ...(body !== undefined && { 'content-type': 'application/json' }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${text.slice(0, 300)}`);
  return text ? (JSON.parse(text) as Record<string, unknown>) : {};
}
