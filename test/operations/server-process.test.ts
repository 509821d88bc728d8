/**
 * The real server process (src/main.ts) at its edges (issue #12 item 4 and "first hour"):
 * - a port in use stops the start with one line and exit 1, before the database is created;
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
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ownDatabaseUrl, type TestDatabase } from '../support/postgres.js';
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
