/**
 * An app on a fresh database, like test/support/app.ts's, but with any configuration and its log
 * lines kept (parsed JSON): what the operations tests look at (request logs, metrics, probes).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { type App, createApp } from '../../src/app.js';
import { type Config, loadConfig } from '../../src/config.js';
import { seed } from '../../src/kernel/seed.js';
import { type Database, openDatabase } from '../../src/platform/database.js';
import { createLogger } from '../../src/platform/logger.js';
import { ADMIN, authHeader, type Credentials } from '../support/app.js';
import { ownDatabaseUrl } from '../support/postgres.js';

export interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

export interface ObservedApp extends App {
  config: Config;
  database: Database;
  /** Every log line written since the app was built (or since `clearLogs`). */
  logs: LogLine[];
  /** The raw text of every log line, for "this secret appears nowhere" checks. */
  logText(): string;
  clearLogs(): void;
  /** Sends a request; `auth` defaults to the seeded admin, null sends none. */
  request(path: string, init?: RequestInit & { auth?: Credentials | null; json?: unknown }): Promise<Response>;
  /** POSTs a GraphQL operation as the admin (or `auth`). */
  graphql(query: string, variables?: Record<string, unknown>, auth?: Credentials | null): Promise<Response>;
  close(): Promise<void>;
}

/** pino's numeric levels. */
export const LEVEL = { debug: 20, info: 30, warn: 40, error: 50 } as const;

/** A new app whose logger writes at `level` (default debug) into `logs`; `env` overrides settings. */
export async function createObservedApp(options: { env?: Record<string, string>; level?: string } = {}): Promise<ObservedApp> {
  const dir = mkdtempSync(join(tmpdir(), 'portcullis-ops-'));
  const own = await ownDatabaseUrl(join(dir, 'test.db'), 'template');
  const config = loadConfig({
    DATABASE_URL: own.url,
    ADMIN_LOGIN: ADMIN.login,
    ADMIN_PASSWORD: ADMIN.password,
    BRUTE_FORCE_LOGIN_PROTECTION_MAX_ATTEMPTS: '100000',
    ...options.env,
  });
  const database = await openDatabase({ databaseUrl: config.databaseUrl });
  await seed(database.prisma, { adminLogin: config.adminLogin, adminPassword: config.adminPassword });
  const logs: LogLine[] = [];
  const raw: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) {
        raw.push(line);
        logs.push(JSON.parse(line) as LogLine);
      }
      done();
    },
  });
  const app = createApp({ db: database.prisma, config, log: createLogger(options.level ?? 'debug', sink) });

  const request: ObservedApp['request'] = async (path, init = {}) => {
    const { auth = ADMIN, json, headers, ...rest } = init;
    const h = new Headers(headers);
    if (auth) h.set('authorization', authHeader(auth));
    let body = rest.body;
    if (json !== undefined) {
      h.set('content-type', 'application/json');
      body = JSON.stringify(json);
    }
    const res = await app.yoga.fetch(`http://test${path}`, { ...rest, headers: h, ...(body !== undefined && { body }) });
    // Request lines are written at the end of the event-loop turn that answered (use-request-log.ts).
    await new Promise((resolve) => setImmediate(resolve));
    return res;
  };
  return {
    ...app,
    config,
    database,
    logs,
    logText: () => raw.join('\n'),
    clearLogs: () => {
      logs.length = 0;
      raw.length = 0;
    },
    request,
    graphql: (query, variables, auth = ADMIN) => request('/graphql', { method: 'POST', json: { query, variables }, auth }),
    async close() {
      await database.close();
      await own.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The `request` log lines, in order. */
export function requestLines(app: ObservedApp): LogLine[] {
  return app.logs.filter((l) => l.msg === 'request');
}
