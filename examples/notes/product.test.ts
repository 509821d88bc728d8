/**
 * The worked example end to end: the gateway (the app served on 127.0.0.1 by node:http) and the
 * notes product (product.ts) run together. A Viewer reads notes through the role the product
 * registered for Viewers, cannot write, may write at the very next request once a team of theirs
 * is given the writer role, and is refused at the very next request once it is removed: the
 * product follows the gateway's change feed before each request, with no waiting. Permissions are
 * kept in memory between changes; a revision a client was told of is honoured; while the gateway
 * is down the product answers 503 and then resumes from its revision.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, authHeader, createTestApp, type TestApp } from '../../test/support/app.js';
import { expectOutcome, rest } from '../../test/support/requests.js';
import { type Actor, createTeam, createUser } from '../../test/support/subjects.js';
import { startNotes } from './product.js';

let app: TestApp;
let gateway: Server;
let port: number;
let notes: Awaited<ReturnType<typeof startNotes>>;
let viewer: Actor;
let teamId: number;
let writerUid: string;

const close = (server: Server) =>
  new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
const listen = (server: Server, at = 0) => new Promise<void>((resolve) => server.listen(at, '127.0.0.1', resolve));
const asViewer = (method: 'GET' | 'POST', headers: Record<string, string> = {}) =>
  fetch(`${notes.url}/notes`, {
    method,
    headers: { 'x-user-id': String(viewer.id), ...headers },
    ...(method === 'POST' && { body: '{"text":"hi"}' }),
  });

beforeAll(async () => {
  app = await createTestApp();
  gateway = createServer(app.yoga);
  await listen(gateway);
  port = (gateway.address() as AddressInfo).port;
  notes = await startNotes({ gateway: `http://127.0.0.1:${port}`, auth: authHeader(ADMIN) });
  viewer = await createUser(app, 'notes-viewer', { orgRole: 'Viewer' });
  teamId = (await createTeam(app, 'note-takers', { members: [viewer.id] })).id;
  const roles = (await rest(app, 'GET', '/api/access-control/roles')).body as unknown as { uid: string; name: string }[];
  writerUid = roles.find((r) => r.name === 'plugins:notes:writer')?.uid as string;
});
afterAll(async () => {
  await close(notes.server);
  await close(gateway);
  await app.close();
});

describe('the notes product following the gateway', () => {
  it('a Viewer reads, cannot write, writes through a team role at the next request, and loses it at the next request', async () => {
    expect((await asViewer('GET')).status).toBe(200);
    expect((await asViewer('POST')).status).toBe(403);

    expectOutcome(await rest(app, 'POST', `/api/access-control/teams/${teamId}/roles`, { json: { roleUid: writerUid } }), 200);
    const written = await asViewer('POST');
    expect(written.status).toBe(200);
    expect(await written.json()).toEqual({ id: 1, text: 'hi', by: viewer.id });
    expect(await (await asViewer('GET')).json()).toHaveLength(1);

    expectOutcome(await rest(app, 'DELETE', `/api/access-control/teams/${teamId}/roles/${writerUid}`), 200);
    expect((await asViewer('POST')).status).toBe(403);
    expect((await asViewer('GET')).status).toBe(200);
  });

  it('keeps permissions in memory while nothing changes: one feed read per request, no permission read', async () => {
    await asViewer('GET');
    const before = notes.followed.reads;
    for (let i = 0; i < 5; i++) expect((await asViewer('GET')).status).toBe(200);
    expect(notes.followed.reads - before).toBe(5);
  });

  it('answers at a revision a client was told of, and refuses one never issued', async () => {
    const res = await app.request(`/api/access-control/users/${viewer.id}/roles`, { method: 'POST', json: { roleUid: writerUid } });
    expect(res.status).toBe(200);
    const revision = Number(res.headers.get('x-access-revision'));
    expect((await asViewer('POST', { 'x-access-revision-at-least': String(revision) })).status).toBe(200);
    expect((await asViewer('GET', { 'x-access-revision-at-least': String(revision + 1000) })).status).toBe(400);
    expectOutcome(await rest(app, 'DELETE', `/api/access-control/users/${viewer.id}/roles/${writerUid}`), 200);
    expect((await asViewer('POST')).status).toBe(403);
  });

  it('answers 503 while the gateway is down, then resumes from its revision without missing a change', async () => {
    expect((await asViewer('POST')).status).toBe(403);
    await close(gateway);
    expect((await asViewer('GET')).status).toBe(503);
    // A grant made while the product could not read the feed.
    expectOutcome(await rest(app, 'POST', `/api/access-control/users/${viewer.id}/roles`, { json: { roleUid: writerUid } }), 200);
    gateway = createServer(app.yoga);
    await listen(gateway, port);
    expect((await asViewer('POST')).status).toBe(200);
  });

  it('refuses callers without an identity', async () => {
    expect((await fetch(`${notes.url}/notes`)).status).toBe(401);
  });
});
