/**
 * Resuming the change stream as an EventSource does (modules/changes/streams.ts,
 * http/use-sse-event-ids.ts), on SQLite and PostgreSQL: every event of `accessChanges` carries
 * its revision as its SSE id, checkpoints too; a client reconnecting with `Last-Event-ID` gets
 * exactly what it missed, and Last-Event-ID wins over the `after` still in its URL; a malformed
 * one is a 400. The slow-consumer bound: a client that leaves a full buffer untaken gets a resync
 * event at the last revision it took, the stream ends, and a resume from there misses nothing.
 */
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ChangeStreams } from '../../src/modules/changes/streams.js';
import { ADMIN, authHeader, createTestApp, type TestApp } from '../support/app.js';
import { SseClient, type SseEvent } from '../support/sse.js';
import { unique } from '../support/subjects.js';

let app: TestApp;
let server: Server;
let base: string;

beforeAll(async () => {
  app = await createTestApp();
  server = createServer(app.listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  await app?.close();
});

const QUERY = 'subscription ($after: Int) { accessChanges(after: $after) { revision resync change { revision kinds } } }';

/** An EventSource-like client of `accessChanges(after)` over real HTTP: a GET, as an EventSource sends it. */
function overHttp(after: number | undefined): SseClient {
  const params = new URLSearchParams({ query: QUERY, ...(after !== undefined && { variables: JSON.stringify({ after }) }) });
  return new SseClient((headers, signal) =>
    fetch(`${base}/graphql?${params}`, {
      // The CSRF header a GET needs (SECURITY.md); an EventSource library sets it with its headers option.
      headers: { ...headers, authorization: authHeader(ADMIN), 'x-graphql-yoga-csrf': '1' },
      signal,
    }),
  );
}

/** The same client in process (yoga.fetch), POSTing the subscription. */
function inProcess(after: number | undefined): SseClient {
  return new SseClient((headers, signal) =>
    app.request('/graphql', { method: 'POST', headers, json: { query: QUERY, variables: after === undefined ? {} : { after } }, signal }),
  );
}

type Payload = {
  data?: { accessChanges?: { revision: number; resync: boolean; change: { revision: number } | null } };
  errors?: { extensions?: { code?: string } }[];
};
const payload = (event: SseEvent | undefined) => JSON.parse(event?.data || '{}') as Payload;

/** A role written through REST; returns its revision. */
async function write(): Promise<number> {
  const res = await app.request('/api/access-control/roles', {
    method: 'POST',
    json: { name: `custom:${unique('sse')}`, permissions: [] },
  });
  expect(res.status).toBe(200);
  return Number(res.headers.get('x-access-revision'));
}

/** The next `n` events of type `next`. */
async function nextEvents(client: SseClient, n: number): Promise<SseEvent[]> {
  const got: SseEvent[] = [];
  while (got.length < n) {
    const event = await client.next();
    if (!event) throw new Error(`the stream ended after ${got.length} of ${n} events`);
    if (event.type === 'next') got.push(event);
  }
  return got;
}

describe('SSE ids and Last-Event-ID', () => {
  it('each event carries its revision as its id; a reconnection with Last-Event-ID gets exactly what it missed', async () => {
    const start = await write();
    const client = overHttp(start);
    const res = await client.connect();
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const written = [await write(), await write(), await write()];
    const first = await nextEvents(client, 3);
    expect(first.map((e) => e.lastEventId)).toEqual(written.map(String));
    expect(first.map((e) => payload(e).data?.accessChanges?.change?.revision)).toEqual(written);
    client.close();

    const missed = [await write(), await write()];
    // The same URL (after = start, the older position) with Last-Event-ID: the header wins.
    await client.connect();
    const resumed = await nextEvents(client, 2);
    expect(resumed.map((e) => payload(e).data?.accessChanges?.change?.revision)).toEqual(missed);
    expect(client.lastEventId).toBe(String(missed[1]));
    const later = await write();
    expect(payload((await nextEvents(client, 1))[0]).data?.accessChanges?.revision).toBe(later);
    client.close();
  });

  it('a malformed Last-Event-ID is a 400 VALIDATION_FAILED', async () => {
    const res = await app.request('/graphql', {
      method: 'POST',
      headers: { accept: 'text/event-stream', 'last-event-id': 'yesterday' },
      json: { query: QUERY },
    });
    const text = await res.text();
    expect(text).toContain('VALIDATION_FAILED');
    expect(text).toContain('Last-Event-ID');
  });
});

describe('the streams of a replica, with short bounds', () => {
  let original: ChangeStreams;
  let streams: ChangeStreams;
  beforeAll(() => {
    original = app.services.changeStreams;
  });
  afterAll(() => {
    streams?.closeAll();
    (app.services as { changeStreams: ChangeStreams }).changeStreams = original;
  });
  const admin = {
    kind: 'user' as const,
    id: 1,
    login: ADMIN.login,
    orgId: 1,
    orgRole: 'Admin' as const,
    isServiceAdmin: true,
    authMethod: 'basic' as const,
  };
  const use = (limits: ConstructorParameters<typeof ChangeStreams>[1]) => {
    streams = new ChangeStreams({ db: app.database.prisma, access: app.services.access, changes: app.services.changes }, limits);
    (app.services as { changeStreams: ChangeStreams }).changeStreams = streams;
  };

  it('a checkpoint carries the revision reached as its id', async () => {
    use({ checkpointMs: 20 });
    const head = await write();
    const client = inProcess(head);
    await client.connect();
    const [checkpoint] = await nextEvents(client, 1);
    expect(payload(checkpoint).data?.accessChanges).toEqual({ revision: head, resync: false, change: null });
    expect(checkpoint?.lastEventId).toBe(String(head));
    client.close();
  });

  it('a client that leaves a full buffer untaken gets a resync at the last revision it took (here: none taken); resuming from it misses nothing', async () => {
    use({ bufferSize: 3, slowConsumerMs: 20 });
    const start = await write();
    // The stream itself, without the transport's own buffers between it and the client.
    const stream = await streams.open(admin, { after: start });
    const written: number[] = [];
    for (let i = 0; i < 6; i++) written.push(await write());
    // The client takes nothing until the stream gave up on it: its slot is then free.
    await vi.waitFor(() => expect(streams.count).toBe(0), { timeout: 10_000 });
    expect((await stream.next()).value).toEqual({ revision: start, change: null, resync: true });
    expect((await stream.next()).done).toBe(true);

    use({});
    const client = inProcess(undefined);
    client.lastEventId = String(start); // what an EventSource holds after the resync event
    await client.connect();
    const rest = await nextEvents(client, written.length);
    expect(rest.map((e) => payload(e).data?.accessChanges?.change?.revision)).toEqual(written);
    client.close();
  });
});
