/**
 * Test app: a fresh temporary SQLite database, migrated and seeded (a copy of the template
 * database, template-db.ts), and the app built on it.
 * Requests go through `yoga.fetch` (no port). Counts SQL statements for N+1 checks.
 * Requests and their assertions: requests.ts; users, teams, roles and the standard actors: subjects.ts.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Plugin } from 'graphql-yoga';
import pino from 'pino';
import { type App, createApp } from '../../src/app.js';
import { type Config, loadConfig } from '../../src/config.js';
import { seed } from '../../src/kernel/seed.js';
import type { Clock } from '../../src/platform/clock.js';
import { type Database, databasePath, openDatabase } from '../../src/platform/database.js';
import { createLogger } from '../../src/platform/logger.js';
import type { PasswordVerifier } from '../../src/platform/passwords.js';
import { createPostgresTestDatabase, onPostgres } from './postgres.js';
import { copyTemplateDatabase } from './template-db.js';

export const ADMIN = { login: 'admin', password: 'admin-test-password' };
/** The admin's login with a wrong password: the 401 INVALID_CREDENTIALS case. */
export const BAD_PASSWORD = { login: ADMIN.login, password: 'wrong' };

export interface TestApp extends App {
  database: Database;
  config: Config;
  dir: string;
  /** SQL statements sent since the last `resetQueries()`. */
  queries: string[];
  resetQueries(): void;
  /** Sends a request to the app; `path` starts with `/`. */
  request(path: string, init?: RequestInit & { auth?: Credentials | null; json?: unknown; orgId?: number }): Promise<Response>;
  /** POSTs a GraphQL operation to /graphql. */
  graphql<T = Record<string, unknown>>(
    query: string,
    variables?: Record<string, unknown>,
    options?: { auth?: Credentials | null; orgId?: number },
  ): Promise<{
    status: number;
    body: { data?: T | null; errors?: { message: string; extensions?: { code?: string; http?: { status?: number } } }[] };
  }>;
  /**
   * Runs `provoke` (requests that fail on purpose) and answers the log lines written meanwhile,
   * parsed, instead of printing them on stderr: the test asserts on what it provoked, and a run
   * of the suite shows only the errors nobody expected.
   */
  expectLogged<T>(provoke: () => Promise<T>): Promise<{ result: T; lines: LogLine[] }>;
  close(): Promise<void>;
}

/** One parsed log line of the app (pino's JSON): level number, message and fields. */
export type LogLine = { level: number; msg?: string; err?: { type?: string; message?: string }; status?: number; route?: string } & Record<
  string,
  unknown
>;

/** Basic credentials ({login, password}) or a bearer token ({token}). */
export type Credentials = { login: string; password: string } | { token: string };

export function authHeader(credentials: Credentials): string {
  if ('token' in credentials) return `Bearer ${credentials.token}`;
  return `Basic ${Buffer.from(`${credentials.login}:${credentials.password}`).toString('base64')}`;
}

/** A clock tests move by hand (the `clock` option of createTestApp). */
export class TestClock implements Clock {
  constructor(private ms = Date.UTC(2030, 0, 1, 12, 0, 0)) {}
  now(): Date {
    return new Date(this.ms);
  }
  advance(seconds: number): void {
    this.ms += seconds * 1000;
  }
}

/**
 * Builds a test app on a new database. `env` overrides configuration variables
 * (EDITION, API_KEY_MAX_SECONDS_TO_LIVE, ...); `verifyPassword` replaces the password check
 * (to count or hold the checks sign-in makes). On SQLite the database is a copy of the migrated
 * and seeded template (template-db.ts); it is migrated and seeded in place only when the template
 * cannot stand for it: a DATABASE_URL in `env` naming an existing file, or no ADMIN_PASSWORD (the
 * seed then generates one). On PostgreSQL (`npm run test:postgres`) it is a database of its own
 * made from the run's template database, migrated and seeded alike (postgres.ts), so neither
 * runs again unless `env` chooses another first admin (the database is then an empty one).
 */
/** The yoga plugins, in order, of an app built on `app`'s database and configuration (createApp's `editPlugins`). */
export function pluginsOf(app: TestApp): Plugin[] {
  let plugins: Plugin[] = [];
  createApp({
    db: app.database.prisma,
    config: app.config,
    log: createLogger('silent'),
    editPlugins: (list) => {
      plugins = list;
      return list;
    },
  });
  return plugins;
}

export async function createTestApp(
  options: { env?: Record<string, string>; clock?: Clock; verifyPassword?: PasswordVerifier } = {},
): Promise<TestApp> {
  const dir = mkdtempSync(join(tmpdir(), 'portcullis-test-'));
  // `npm run test:postgres`: a database of its own on the run's PostgreSQL server (postgres.ts).
  const postgres = onPostgres ? await createPostgresTestDatabase(options.env) : undefined;
  const config = loadConfig({
    DATABASE_URL: postgres?.url ?? `file:${join(dir, 'test.db')}`,
    ADMIN_LOGIN: ADMIN.login,
    ADMIN_PASSWORD: ADMIN.password,
    LOG_LEVEL: 'silent',
    // Many tests send wrong passwords on purpose; test/sign-in sets the real limit itself.
    BRUTE_FORCE_LOGIN_PROTECTION_MAX_ATTEMPTS: '100000',
    ...options.env,
  });
  const queries: string[] = [];
  const path = databasePath(config.databaseUrl);
  const copied = !postgres && config.adminPassword !== undefined && !existsSync(path);
  if (copied) await copyTemplateDatabase(path, { login: config.adminLogin, password: config.adminPassword as string });
  const database = await openDatabase({ databaseUrl: config.databaseUrl, onQuery: (sql) => queries.push(sql) });
  // A copy of either template already holds what the seed writes (organization 1, the built-in
  // roles, the test admin): the seed runs only on a database that is not one. Seeding a database
  // seeded before is tested where it is about (test/platform/seed.test.ts).
  const seeded = copied || (postgres?.seeded === true && config.databaseUrl === postgres.url);
  if (!seeded) await seed(database.prisma, { adminLogin: config.adminLogin, adminPassword: config.adminPassword });
  // Unexpected errors (the ones answered 500 INTERNAL) are logged on stderr with their cause, as
  // the service logs them: a 500 in a test run names its real error. TEST_LOG_LEVEL=silent hides
  // them. Errors a test provokes on purpose are collected by expectLogged instead.
  const stderr = pino.destination({ dest: 2, sync: true });
  let captured: LogLine[] | undefined;
  const log = createLogger(process.env.TEST_LOG_LEVEL ?? 'error', {
    write(line: string) {
      if (captured) captured.push(JSON.parse(line) as LogLine);
      else stderr.write(line);
    },
  });
  const app = createApp({
    db: database.prisma,
    config,
    log,
    ...(options.clock && { clock: options.clock }),
    ...(options.verifyPassword && { verifyPassword: options.verifyPassword }),
  });

  const request: TestApp['request'] = (path, init = {}) => {
    const { auth = ADMIN, json, orgId, headers, ...rest } = init;
    const h = new Headers(headers);
    if (auth) h.set('authorization', authHeader(auth));
    if (orgId !== undefined) h.set('x-service-org-id', String(orgId));
    let body = rest.body;
    if (json !== undefined) {
      h.set('content-type', 'application/json');
      body = JSON.stringify(json);
    }
    return Promise.resolve(app.yoga.fetch(`http://test${path}`, { ...rest, headers: h, ...(body !== undefined && { body }) }));
  };

  return {
    ...app,
    database,
    config,
    dir,
    queries,
    resetQueries: () => {
      queries.length = 0;
    },
    request,
    async graphql(query, variables, opts = {}) {
      const res = await request('/graphql', {
        method: 'POST',
        json: { query, variables },
        auth: opts.auth === undefined ? ADMIN : opts.auth,
        ...(opts.orgId !== undefined && { orgId: opts.orgId }),
      });
      return { status: res.status, body: (await res.json()) as never };
    },
    async expectLogged(provoke) {
      const lines: LogLine[] = [];
      captured = lines;
      try {
        return { result: await provoke(), lines };
      } finally {
        captured = undefined;
      }
    },
    async close() {
      await app.services.sessions.seenWritesSettled(); // writes that run after their request
      await database.close();
      await postgres?.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
