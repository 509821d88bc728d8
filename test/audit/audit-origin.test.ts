/**
 * Where a change came from, as the log records it: over a real socket the client address is the
 * peer's, and a forged X-Forwarded-For is ignored without TRUST_PROXY (anyone can send it); the
 * caller's X-Request-Id is kept when sane, a generated one otherwise. Changes made outside any
 * request (the CLI, provisioning at start) name the local operator with no address and no id.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localOperator } from '../../src/kernel/principal.js';
import { ADMIN, authHeader, createTestApp, type TestApp } from '../support/app.js';
import { eventsAfter, lastEventId } from './audit-scene.js';

let app: TestApp;
let server: Server;
let base = '';

beforeAll(async () => {
  app = await createTestApp();
  server = createServer(app.yoga);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await app?.close();
});

/** Creates role `uid` over real HTTP with extra headers; answers the events it logged. */
async function createRoleOverHttp(uid: string, headers: Record<string, string>) {
  const mark = await lastEventId(app);
  const res = await fetch(`${base}/api/access-control/roles`, {
    method: 'POST',
    headers: { authorization: authHeader(ADMIN), 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ uid, name: `custom:${uid}` }),
  });
  expect(res.status, await res.clone().text()).toBe(200);
  return eventsAfter(app, mark);
}

describe('the origin of a change', () => {
  it('the socket address and the caller X-Request-Id; a forged X-Forwarded-For is ignored without TRUST_PROXY', async () => {
    const [event] = await createRoleOverHttp('origin-a', { 'x-request-id': 'trace-42', 'x-forwarded-for': '198.51.100.7' });
    expect(event).toMatchObject({ action: 'role.create', resourceId: 'origin-a', clientAddress: '127.0.0.1', requestId: 'trace-42' });
  });

  it('an unusable X-Request-Id is replaced by a generated one', async () => {
    const [event] = await createRoleOverHttp('origin-b', { 'x-request-id': 'bad id with spaces' });
    expect(event?.requestId).toMatch(/^[0-9a-f-]{36}$/);
    const [other] = await createRoleOverHttp('origin-c', {});
    expect(other?.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(other?.requestId).not.toBe(event?.requestId);
  });

  it('outside any request (the CLI): the local operator, no address, no request id', async () => {
    const mark = await lastEventId(app);
    await app.services.roles.create(localOperator(1), { uid: 'origin-cli', name: 'custom:origin-cli' });
    const events = await eventsAfter(app, mark);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      action: 'role.create',
      orgId: 1,
      actorKind: 'local',
      actorId: 0,
      actorLogin: 'local-operator',
      authMethod: 'local',
      clientAddress: '',
      requestId: '',
    });
  });
});
