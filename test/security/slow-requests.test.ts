/**
 * Bounded slow requests, over real sockets (src/http/node-server.ts): a body or
 * headers sent a byte at a time are cut off with 408 once REQUEST_TIMEOUT_SECONDS /
 * HEADERS_TIMEOUT_SECONDS (here fractions of a second, given to the server in milliseconds) have
 * passed, and the role the body would have created is not; a connection over
 * MAX_CONNECTIONS_PER_CLIENT from one address is answered 429 and closed while the address's
 * other connections are served, and a freed place is taken again; behind TRUST_PROXY no cap.
 * Every wait is for an event (a socket's close, an answer), never a fixed sleep. The last test
 * starts the real server to prove main.ts passes the settings.
 */
import type { Server } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeServer, type ServerLimits } from '../../src/http/node-server.js';
import { ADMIN, authHeader, createTestApp, type TestApp } from '../support/app.js';
import { killServers, startServer, stopServer } from '../support/server.js';

let app: TestApp;
const servers: Server[] = [];

beforeAll(async () => {
  app = await createTestApp();
});
afterAll(async () => {
  for (const server of servers) server.closeAllConnections();
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  killServers();
  await app.close();
});

/** The app behind a real server with `limits` (defaults: long timeouts, a high cap), on a free port. */
async function serve(limits: Partial<ServerLimits>): Promise<{ server: Server; port: number }> {
  const server = createNodeServer(app.yoga, {
    requestTimeoutMs: 60_000,
    headersTimeoutMs: 60_000,
    maxConnectionsPerClient: 1000,
    trustProxy: false,
    ...limits,
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

/** A raw client: what it received so far, and a promise of its close (with everything received). */
interface Client {
  socket: Socket;
  received: () => string;
  closed: Promise<string>;
}

function open(port: number): Promise<Client> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.on('data', (chunk) => {
      text += chunk.toString('latin1');
    });
    socket.on('error', () => undefined); // a reset is a close too: `closed` reports it
    const closed = new Promise<string>((done) => socket.once('close', () => done(text)));
    socket.once('connect', () => resolve({ socket, received: () => text, closed }));
    socket.once('error', reject);
  });
}

/** Writes `bytes` one at a time every `everyMs` until the socket closes; resolves with how many went. */
function trickle(client: Client, bytes: string, everyMs: number): Promise<number> {
  return new Promise((resolve) => {
    let sent = 0;
    const timer = setInterval(() => {
      if (client.socket.destroyed || sent >= bytes.length) {
        clearInterval(timer);
        resolve(sent);
        return;
      }
      client.socket.write(bytes[sent] as string);
      sent++;
    }, everyMs);
    client.socket.once('close', () => {
      clearInterval(timer);
      resolve(sent);
    });
  });
}

/** The first answer on a keep-alive socket to `GET /api/health`, resolved once its body is complete. */
async function health(client: Client): Promise<string> {
  const before = client.received().length;
  client.socket.write('GET /api/health HTTP/1.1\r\nHost: test\r\n\r\n');
  return new Promise((resolve) => {
    const check = () => {
      const answer = client.received().slice(before);
      if (/\r\n\r\n[\s\S]*\}/.test(answer)) {
        client.socket.off('data', check);
        resolve(answer);
      }
    };
    client.socket.on('data', check);
    check();
  });
}

const auth = authHeader(ADMIN);

describe('a request must arrive in bounded time', () => {
  it('a body sent a byte at a time is cut off with 408 after the request timeout, and creates nothing', async () => {
    const { port } = await serve({ requestTimeoutMs: 800, headersTimeoutMs: 400 });
    const body = JSON.stringify({ name: 'custom:slow-body', permissions: [] });
    const client = await open(port);
    const started = performance.now();
    client.socket.write(
      `POST /api/access-control/roles HTTP/1.1\r\nHost: test\r\nAuthorization: ${auth}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    const [sent, received] = await Promise.all([trickle(client, body, 40), client.closed]);
    const elapsed = performance.now() - started;
    expect(received).toMatch(/^HTTP\/1\.1 408 /);
    expect(sent).toBeLessThan(body.length); // cut off mid-body, not answered after it
    expect(elapsed).toBeGreaterThanOrEqual(800);
    expect(await app.database.prisma.role.count({ where: { name: 'custom:slow-body' } })).toBe(0);
  }, 30_000);

  it('headers sent a byte at a time, or none at all, are cut off with 408 after the headers timeout', async () => {
    const { port } = await serve({ requestTimeoutMs: 5_000, headersTimeoutMs: 400 });
    const slow = await open(port);
    const silent = await open(port);
    const started = performance.now();
    const headers = `GET /api/health HTTP/1.1\r\nHost: test\r\nX-Padding: ${'x'.repeat(500)}\r\n\r\n`;
    const [sent, received, silentReceived] = await Promise.all([trickle(slow, headers, 20), slow.closed, silent.closed]);
    expect(received).toMatch(/^HTTP\/1\.1 408 /);
    expect(silentReceived).toMatch(/^HTTP\/1\.1 408 /);
    expect(sent).toBeLessThan(headers.length);
    expect(performance.now() - started).toBeGreaterThanOrEqual(400);
  }, 30_000);

  it('a request that arrives in time is answered, however long the answer takes to read', async () => {
    const { port } = await serve({ requestTimeoutMs: 800, headersTimeoutMs: 400 });
    const client = await open(port);
    expect(await health(client)).toMatch(/^HTTP\/1\.1 200 /);
    client.socket.destroy();
  });
});

describe('connections per client address', () => {
  it('the one over the cap gets 429 TOO_MANY_CONNECTIONS and is closed; the others are served; a freed place is taken again', async () => {
    const { server, port } = await serve({ maxConnectionsPerClient: 3 });
    server.keepAliveTimeout = 60_000; // held connections stay open between their requests
    const serverClosed: Promise<void>[] = [];
    server.on('connection', (socket: Socket) => serverClosed.push(new Promise((resolve) => socket.once('close', () => resolve()))));
    const held = [await open(port), await open(port), await open(port)];
    for (const client of held) expect(await health(client)).toMatch(/^HTTP\/1\.1 200 /);

    const extra = await open(port);
    extra.socket.write('GET /api/health HTTP/1.1\r\nHost: test\r\n\r\n');
    const refused = await extra.closed;
    expect(refused).toMatch(/^HTTP\/1\.1 429 /);
    expect(refused).toContain('"code":"TOO_MANY_CONNECTIONS"');
    expect(refused).not.toContain('"database"'); // the health answer never came: the app did not see it

    // The others are still served, on their open connections.
    for (const client of held) expect(await health(client)).toMatch(/^HTTP\/1\.1 200 /);

    // One closes (the server sees it), and a new connection gets its place.
    held[0]?.socket.destroy();
    await serverClosed[0];
    const next = await open(port);
    expect(await health(next)).toMatch(/^HTTP\/1\.1 200 /);
    for (const client of [...held, next]) client.socket.destroy();
  }, 30_000);

  it('behind a trusted proxy every socket is the proxy: no cap', async () => {
    const { server, port } = await serve({ maxConnectionsPerClient: 1, trustProxy: true });
    server.keepAliveTimeout = 60_000;
    const clients = [await open(port), await open(port), await open(port)];
    for (const client of clients) expect(await health(client)).toMatch(/^HTTP\/1\.1 200 /);
    for (const client of clients) client.socket.destroy();
  });
});

describe('the real server', () => {
  it('takes REQUEST_TIMEOUT_SECONDS, HEADERS_TIMEOUT_SECONDS and MAX_CONNECTIONS_PER_CLIENT from its environment', async () => {
    const started = await startServer({
      DATABASE_URL: `file:${app.dir}/real-server.db`,
      ADMIN_PASSWORD: 'slow-requests-password',
      REQUEST_TIMEOUT_SECONDS: '2',
      HEADERS_TIMEOUT_SECONDS: '2',
      MAX_CONNECTIONS_PER_CLIENT: '2',
    });
    // Two connections: one served, one sending its body a byte at a time; a third is one too many.
    const served = await open(started.port);
    expect(await health(served)).toMatch(/^HTTP\/1\.1 200 /);
    const slow = await open(started.port);
    slow.socket.write('POST /login HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{');
    const trickled = Promise.all([trickle(slow, ' '.repeat(99), 100), slow.closed]);
    const extra = await open(started.port);
    expect(await extra.closed).toMatch(/^HTTP\/1\.1 429 /);
    const [sent, received] = await trickled;
    expect(received).toMatch(/^HTTP\/1\.1 408 /);
    expect(sent).toBeLessThan(99);
    served.socket.destroy();
    expect(await stopServer(started)).toBe(0);
  }, 120_000);
});
