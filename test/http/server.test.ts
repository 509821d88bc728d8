/**
 * End to end: starts the real server (`npm start`'s entry) on a free port with a temporary
 * database (on `npm run test:postgres`, an empty PostgreSQL database it migrates and seeds itself),
 * speaks HTTP to it, restarts it, and checks nothing was lost or duplicated.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ownDatabaseUrl, type TestDatabase } from '../support/postgres.js';
import { killServers, startServer, stopServer } from '../support/server.js';

const dir = mkdtempSync(join(tmpdir(), 'portcullis-e2e-'));
let database: TestDatabase;
beforeAll(async () => {
  database = await ownDatabaseUrl(join(dir, 'data/e2e.db'));
});
const auth = `Basic ${Buffer.from('root:e2e-password').toString('base64')}`;

/** Starts the server as `npm start` does, from a folder that is not the repository, on a database there. */
const start = () =>
  startServer({ DATABASE_URL: database.url, ADMIN_LOGIN: 'root', ADMIN_PASSWORD: 'e2e-password' }, { cwd: dir, timeoutMs: 60_000 });

afterAll(async () => {
  killServers();
  await database?.drop();
  rmSync(dir, { recursive: true, force: true });
});

describe('the real server', () => {
  it('serves REST, GraphQL and GraphiQL, and keeps its data across a restart', async () => {
    const first = await start();
    const base = `http://127.0.0.1:${first.port}`;
    const status = await fetch(`${base}/api/access-control/status`, { headers: { authorization: auth } });
    expect(status.status).toBe(200);
    expect(await status.json()).toEqual({ enabled: true });
    expect((await fetch(`${base}/api/access-control/status`)).status).toBe(401);

    const created = await fetch(`${base}/api/access-control/roles`, {
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'application/json' },
      body: JSON.stringify({ uid: 'e2e', name: 'custom:e2e', permissions: [{ action: 'teams:read', scope: 'teams:*' }] }),
    });
    expect(created.status).toBe(200);
    const all = (await (
      await fetch(`${base}/api/access-control/roles?includeHidden=true`, { headers: { authorization: auth } })
    ).json()) as unknown[];

    const gql = await fetch(`${base}/graphql`, {
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ viewer { login isServiceAdmin } role(uid: "e2e") { name permissions { action } } }' }),
    });
    expect(await gql.json()).toEqual({
      data: { viewer: { login: 'root', isServiceAdmin: true }, role: { name: 'custom:e2e', permissions: [{ action: 'teams:read' }] } },
    });
    const page = await fetch(`${base}/graphql`, { headers: { accept: 'text/html', authorization: auth } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('GraphiQL');
    const prompt = await fetch(`${base}/graphql`, { headers: { accept: 'text/html' } });
    expect(prompt.status).toBe(401);
    expect(prompt.headers.get('www-authenticate')).toContain('Basic');
    await stopServer(first);

    const second = await start();
    const again = (await (
      await fetch(`http://127.0.0.1:${second.port}/api/access-control/roles?includeHidden=true`, { headers: { authorization: auth } })
    ).json()) as {
      uid: string;
    }[];
    expect(again).toHaveLength(all.length);
    expect(again.map((r) => r.uid)).toContain('e2e');
    await stopServer(second);
  }, 120_000);
});
