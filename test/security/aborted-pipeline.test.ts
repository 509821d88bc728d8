/**
 * Requests whose client goes away mid-body, over real HTTP to the real server: a closed
 * connection and malformed chunked data, on REST, `POST /login` and GraphQL. The server logs them
 * as aborted (status 499, level info) and counts them as 499, never as a 5xx or an "unexpected
 * error" (src/http/use-request-log.ts, src/http/body.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ownDatabaseUrl, type TestDatabase } from '../support/postgres.js';
import { killServers, type ServerProcess, startServer, stopServer } from '../support/server.js';

const dir = mkdtempSync(join(tmpdir(), 'portcullis-abort-'));
const auth = `Basic ${Buffer.from('admin:abort-test-password').toString('base64')}`;
let server: ServerProcess & { port: number };
let database: TestDatabase;

beforeAll(async () => {
  database = await ownDatabaseUrl(join(dir, 'abort.db'));
  server = await startServer({
    DATABASE_URL: database.url,
    ADMIN_PASSWORD: 'abort-test-password',
    METRICS_ENABLED: 'true',
    SHUTDOWN_TIMEOUT_SECONDS: '2',
  });
}, 120_000);
afterAll(async () => {
  // SIGTERM, which the tsx launcher passes on; SIGKILL (killServers) would orphan the server.
  if (server) expect(await stopServer(server)).toBe(0);
  killServers();
  await database?.drop();
  rmSync(dir, { recursive: true, force: true });
}, 30_000);

type Cut = 'closed' | 'malformed chunked';

/**
 * Starts a JSON POST to `path` and cuts it: `closed` declares 1,000 bytes, sends 9 and closes;
 * `malformed chunked` sends one good chunk and then a chunk size that is not hexadecimal (Node
 * answers 400 itself and drops the connection). Resolves when the socket has closed.
 */
function cutShort(path: string, cut: Cut): Promise<void> {
  return new Promise((resolve) => {
    const socket = connect(server.port, '127.0.0.1');
    socket.on('error', () => undefined);
    socket.on('close', () => resolve());
    socket.resume();
    const head = `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${auth}\r\nContent-Type: application/json\r\n`;
    if (cut === 'closed') {
      socket.write(`${head}Content-Length: 1000\r\n\r\n{"name":"`);
      setTimeout(() => socket.destroy(), 200);
    } else {
      socket.write(`${head}Transfer-Encoding: chunked\r\n\r\n5\r\n{"nam\r\nZZ\r\n`);
      setTimeout(() => socket.destroy(), 2000);
    }
  });
}

interface LogLine {
  level: number;
  msg: string;
  route?: string;
  status?: number;
  aborted?: boolean;
}

const logLines = (): LogLine[] =>
  server
    .output()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as LogLine);

async function waitFor<T>(probe: () => T | undefined, what: string): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const found = probe();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`no ${what} in:\n${server.output()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('a client that goes away mid-body', () => {
  const cases: [string, Cut][] = [
    ['/api/access-control/roles', 'closed'],
    ['/api/access-control/roles', 'malformed chunked'],
    ['/login', 'closed'],
    ['/login', 'malformed chunked'],
    ['/graphql', 'closed'],
    ['/graphql', 'malformed chunked'],
  ];

  it('is logged as aborted (499, info) and counted as 499, never as a 5xx', async () => {
    for (const [path, cut] of cases) {
      const before = logLines().filter((l) => l.msg === 'request' && l.route === path).length;
      await cutShort(path, cut);
      const line = await waitFor(() => logLines().filter((l) => l.msg === 'request' && l.route === path)[before], `${path} request line`);
      expect(line, `${path} ${cut}`).toMatchObject({ level: 30, status: 499, aborted: true });
    }
    expect(logLines().filter((l) => l.level >= 50)).toEqual([]);
    expect(server.output()).not.toContain('unexpected error');

    const metrics = await (await fetch(`http://127.0.0.1:${server.port}/metrics`)).text();
    const samples = metrics.split('\n').filter((l) => l.startsWith('portcullis_http_requests_total{'));
    for (const path of ['/api/access-control/roles', '/login', '/graphql']) {
      expect(samples, path).toContain(`portcullis_http_requests_total{method="POST",route="${path}",status="499"} 2`);
    }
    expect(samples.filter((l) => /status="5\d\d"/.test(l))).toEqual([]);
  });

  it('leaves the server answering', async () => {
    const res = await fetch(`http://127.0.0.1:${server.port}/api/access-control/status`, { headers: { authorization: auth } });
    expect(res.status).toBe(200);
  });
});
