/**
 * The real server process (src/main.ts) at its edges (issue #12 item 4 and "first hour"):
 * - a port in use stops the start with one line and exit 1, before the database is created;
 * - SIGTERM lets a request in flight finish, refuses new connections, closes idle keep-alive
 *   ones, closes the database and exits 0;
 * - a request that does not finish within SHUTDOWN_TIMEOUT_SECONDS is cut off, exit 1.
 * The slow request is a real one: its body is sent in two halves, the signal arriving in between.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';

const root = new URL('../..', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'portcullis-process-'));
const PASSWORD = 'process-test-password';
const AUTH = `Basic ${Buffer.from(`admin:${PASSWORD}`).toString('base64')}`;
const running = new Set<ChildProcess>();

interface Started {
  proc: ChildProcess;
  port: number;
  output: () => string;
  exited: Promise<number | null>;
}

/** Spawns `node --import tsx src/main.ts` with `env`; resolves once it exits or logs `listening`. */
function launch(env: Record<string, string>): { proc: ChildProcess; output: () => string; exited: Promise<number | null> } {
  const proc = spawn(process.execPath, ['--import', 'tsx', join(root, 'src/main.ts')], {
    cwd: root,
    env: { ...process.env, HOST: '127.0.0.1', ADMIN_PASSWORD: PASSWORD, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(proc);
  let out = '';
  proc.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  proc.stderr?.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => {
    proc.on('exit', (code) => {
      running.delete(proc);
      resolve(code);
    });
  });
  return { proc, output: () => out, exited };
}

async function start(name: string, env: Record<string, string> = {}): Promise<Started> {
  const launched = launch({ PORT: '0', DATABASE_URL: `file:${join(dir, name, 'portcullis.db')}`, ...env });
  const deadline = Date.now() + 90_000;
  for (;;) {
    const line = launched
      .output()
      .split('\n')
      .find((l) => l.includes('listening'));
    if (line) return { ...launched, port: (JSON.parse(line) as { port: number }).port };
    if (Date.now() > deadline || launched.proc.exitCode !== null) throw new Error(`server did not start:\n${launched.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
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

afterEach(() => {
  for (const proc of running) proc.kill('SIGKILL');
});
afterAll(() => {
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
    const { output, exited } = launch({ PORT: String(port), DATABASE_URL: `file:${database}` });
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
