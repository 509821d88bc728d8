/**
 * The real server process (src/main.ts) at its edges:
 * - a port in use stops the start with one line and exit 1, before the database is created;
 * - a database that cannot be used stops it with one line naming DATABASE_URL (password hidden)
 *   and the likely cause, no stack: nothing listening, and on PostgreSQL runs a refused password
 *   and a missing database; a bare path given as DATABASE_URL is told to be written `file:<path>`;
 * - SIGTERM lets a request in flight finish, refuses new connections, closes idle keep-alive
 *   ones, closes the database and exits 0;
 * - a request that does not finish within SHUTDOWN_TIMEOUT_SECONDS is cut off, exit 1.
 * The slow request is a real one: its body is sent in two halves, the signal arriving in between.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, inject, it } from 'vitest';
import { onPostgres, ownDatabaseUrl, type TestDatabase } from '../support/postgres.js';
import { killServers, launchServer, startServer } from '../support/server.js';

const dir = mkdtempSync(join(tmpdir(), 'portcullis-process-'));
const PASSWORD = 'process-test-password';
const AUTH = `Basic ${Buffer.from(`admin:${PASSWORD}`).toString('base64')}`;

const databases: TestDatabase[] = [];

/**
 * The server as the image starts it (`node --import tsx src/main.ts`), on its own database `name`
 * (under `npm run test:postgres`, an empty PostgreSQL database).
 */
async function start(name: string, env: Record<string, string> = {}) {
  const database = await ownDatabaseUrl(join(dir, name, 'portcullis.db'));
  databases.push(database);
  return startServer({ ADMIN_PASSWORD: PASSWORD, DATABASE_URL: database.url, ...env }, { as: 'image' });
}

/**
 * Starts `POST /api/access-control/roles` and sends the first half of its body; `finish()` sends
 * the rest. Resolves `answer` with the status, or rejects when the connection is cut.
 */
function halfSentRequest(port: number, name: string) {
  const body = Buffer.from(JSON.stringify({ name, permissions: [{ action: 'teams:read', scope: 'teams:*' }] }));
  const req = httpRequest({
    host: '127.0.0.1',
    port,
    method: 'POST',
    path: '/api/access-control/roles',
    headers: { authorization: AUTH, 'content-type': 'application/json', 'content-length': body.byteLength },
  });
  const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
    req.on('response', (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => {
        text += chunk.toString();
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
  req.flushHeaders();
  req.write(body.subarray(0, 10));
  return { answer, finish: () => req.end(body.subarray(10)) };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

afterEach(killServers);
afterAll(async () => {
  for (const database of databases.splice(0)) await database.drop();
  rmSync(dir, { recursive: true, force: true });
});

describe('a port already in use', () => {
  let blocker: Server | undefined;
  afterAll(() => blocker?.close());

  it('stops the start with one line and exit 1, before the database is created', async () => {
    const server = createServer();
    blocker = server;
    const port = await new Promise<number>((resolve) => {
      server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port));
    });
    const database = join(dir, 'in-use', 'portcullis.db');
    const { output, exited } = launchServer(
      { ADMIN_PASSWORD: PASSWORD, PORT: String(port), DATABASE_URL: `file:${database}` },
      { as: 'image' },
    );
    expect(await exited).toBe(1);
    const lines = output().trim().split('\n');
    expect(lines).toEqual([
      `portcullis failed to start: port ${port} on 127.0.0.1 is already in use (EADDRINUSE); stop the other process or set PORT`,
    ]);
    expect(existsSync(join(dir, 'in-use'))).toBe(false);
  }, 60_000);
});

/** A port nothing listens on: one the system just gave out and took back. */
function closedPort(): Promise<number> {
  const server = createServer();
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Launches the server with `DATABASE_URL` and answers its exit code and output once it exits. */
async function failedStart(databaseUrl: string): Promise<{ code: number | null; output: string }> {
  const { output, exited } = launchServer({ ADMIN_PASSWORD: PASSWORD, DATABASE_URL: databaseUrl }, { as: 'image' });
  const code = await exited;
  return { code, output: output() };
}

/** The one line of a database start failure: names DATABASE_URL with the password hidden, no stack. */
function expectOneDatabaseLine(output: string, secret: string): string {
  const lines = output.trim().split('\n');
  expect(lines, output).toHaveLength(1);
  expect(output).not.toMatch(/^\s+at /m);
  expect(output).not.toContain(secret);
  expect(lines[0]).toMatch(/^portcullis failed to start: DATABASE_URL postgres:\/\/[^ ]*:\*\*\*@[^ ]+ could not be used: /);
  return lines[0] as string;
}

describe('a database that cannot be used', () => {
  it('nothing listening: names DATABASE_URL, the host and port, and what to check, exit 1', async () => {
    const port = await closedPort();
    const { code, output } = await failedStart(`postgres://portcullis:hidden-secret@127.0.0.1:${port}/portcullis`);
    expect(code).toBe(1);
    const line = expectOneDatabaseLine(output, 'hidden-secret');
    expect(line).toContain(`postgres://portcullis:***@127.0.0.1:${port}/portcullis`);
    expect(line).toContain(`nothing listens on 127.0.0.1:${port} (ECONNREFUSED): is PostgreSQL running, and on that port?`);
  }, 60_000);

  it('a bare path: DATABASE_URL must be file:<path> or postgres://, with the file: form to write', async () => {
    const { code, output } = await failedStart('./data/my.db');
    expect(code).toBe(2);
    expect(output).not.toMatch(/^\s+at /m);
    expect(output).toContain('DATABASE_URL: must be file:<path> (SQLite) or postgres://');
    expect(output).toContain('for a SQLite file write file:./data/my.db');
  }, 60_000);

  it.skipIf(!onPostgres)(
    'PostgreSQL refuses the password: says so and what to check',
    async () => {
      const url = new URL(inject('postgresAdminUrl'));
      url.password = 'not-the-password';
      const { code, output } = await failedStart(url.toString());
      expect(code).toBe(1);
      const line = expectOneDatabaseLine(output, 'not-the-password');
      expect(line).toContain(`PostgreSQL on ${url.hostname}:${url.port} refused user "${url.username}" (28P01`);
      expect(line).toContain('check the user and password in DATABASE_URL');
    },
    60_000,
  );

  it.skipIf(!onPostgres)(
    'the database does not exist: says to create it',
    async () => {
      const url = new URL(inject('postgresAdminUrl'));
      url.pathname = '/portcullis_never_created';
      const { code, output } = await failedStart(url.toString());
      expect(code).toBe(1);
      const line = expectOneDatabaseLine(output, decodeURIComponent(url.password));
      expect(line).toContain('the database "portcullis_never_created" does not exist');
      expect(line).toContain('(3D000): create it');
    },
    60_000,
  );
});

describe('SIGTERM', () => {
  it('finishes the request in flight, refuses new connections, then exits 0', async () => {
    const server = await start('graceful', { SHUTDOWN_TIMEOUT_SECONDS: '30' });
    const base = `http://127.0.0.1:${server.port}`;
    // An idle keep-alive connection must not hold the shutdown until the timeout.
    expect((await fetch(`${base}/api/ready`)).status).toBe(200);
    const slow = halfSentRequest(server.port, 'custom:finished-during-shutdown');
    await sleep(300); // the server has the request's head and is reading its body
    const signalled = Date.now();
    server.proc.kill('SIGTERM');
    await sleep(300);
    await expect(fetch(`${base}/api/health`)).rejects.toThrow(); // no new connection is accepted
    slow.finish();
    const answer = await slow.answer;
    expect(answer.status, answer.body).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({ name: 'custom:finished-during-shutdown' });
    expect(await server.exited).toBe(0);
    expect(Date.now() - signalled).toBeLessThan(15_000);
    const log = server.output();
    expect(log).toContain('"msg":"shutting down: finishing requests in flight"');
    expect(log).toContain('"cutOff":false,"msg":"stopped"');
  }, 120_000);

  it('cuts off a request still unfinished after SHUTDOWN_TIMEOUT_SECONDS, and exits 1', async () => {
    const server = await start('bounded', { SHUTDOWN_TIMEOUT_SECONDS: '1' });
    const stuck = halfSentRequest(server.port, 'custom:never-finished');
    await sleep(300);
    const signalled = Date.now();
    server.proc.kill('SIGTERM');
    await expect(stuck.answer).rejects.toThrow();
    expect(await server.exited).toBe(1);
    expect(Date.now() - signalled).toBeLessThan(8_000);
    expect(server.output()).toContain('"cutOff":true,"msg":"stopped"');
  }, 120_000);
});
