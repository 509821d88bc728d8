/**
 * The worked example end to end: the gateway (the app served on 127.0.0.1 by node:http) and the
 * notes product (product.ts) run together. A Viewer reads notes through the role the product
 * registered for Viewers, cannot write, gets write when a team of theirs is given the writer
 * role, and loses it when that team role is removed (once the product's short cache expires).
 */
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, authHeader, createTestApp, type TestApp } from '../../test/support/app.js';
import { expectOutcome, rest } from '../../test/support/requests.js';
import { type Actor, createTeam, createUser } from '../../test/support/subjects.js';
import { startNotes } from './product.js';

const CACHE_MS = 200;
let app: TestApp;
let gateway: Server;
let notes: { server: Server; url: string };
let viewer: Actor;
let teamId: number;

const close = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()));
const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const asViewer = (method: 'GET' | 'POST') =>
  fetch(`${notes.url}/notes`, { method, headers: { 'x-user-id': String(viewer.id) }, ...(method === 'POST' && { body: '{"text":"hi"}' }) });

beforeAll(async () => {
  app = await createTestApp();
  gateway = createServer(app.yoga);
  await new Promise<void>((resolve) => gateway.listen(0, '127.0.0.1', resolve));
  const address = gateway.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  notes = await startNotes({ gateway: `http://127.0.0.1:${port}`, auth: authHeader(ADMIN), cacheMs: CACHE_MS });
  viewer = await createUser(app, 'notes-viewer', { orgRole: 'Viewer' });
  teamId = (await createTeam(app, 'note-takers', { members: [viewer.id] })).id;
});
afterAll(async () => {
  await close(notes.server);
  await close(gateway);
  await app.close();
});

describe('the notes product guarded by the gateway', () => {
  it('a Viewer reads, cannot write, writes through a team role, and loses it when the team role goes', async () => {
    expect((await asViewer('GET')).status).toBe(200);
    expect((await asViewer('POST')).status).toBe(403);

    const writer = (await rest(app, 'GET', '/api/access-control/roles')).body as unknown as { uid: string; name: string }[];
    const uid = writer.find((r) => r.name === 'plugins:notes:writer')?.uid as string;
    expectOutcome(await rest(app, 'POST', `/api/access-control/teams/${teamId}/roles`, { json: { roleUid: uid } }), 200);
    await wait(CACHE_MS + 50);
    const written = await asViewer('POST');
    expect(written.status).toBe(200);
    expect(await written.json()).toEqual({ id: 1, text: 'hi', by: viewer.id });
    expect(await (await asViewer('GET')).json()).toHaveLength(1);

    expectOutcome(await rest(app, 'DELETE', `/api/access-control/teams/${teamId}/roles/${uid}`), 200);
    await wait(CACHE_MS + 50);
    expect((await asViewer('POST')).status).toBe(403);
    expect((await asViewer('GET')).status).toBe(200);
  });

  it('refuses callers without an identity', async () => {
    expect((await fetch(`${notes.url}/notes`)).status).toBe(401);
  });
});
