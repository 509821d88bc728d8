/**
 * The change feed as a stream (GraphQL `subscription { accessChanges }` over server-sent events,
 * modules/changes/streams.ts), on SQLite and PostgreSQL: changes arrive as they commit, in
 * revision order; a client resuming from the last revision it received gets exactly what it
 * missed; an idle stream sends checkpoints; the permission is checked again at every change
 * (revoked: an error event, then the end); streams are bounded per caller; shutdown ends them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChangeStreams, MAX_STREAMS_PER_PRINCIPAL } from '../../src/modules/changes/streams.js';
import type { Credentials } from '../support/app.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { assignUserRole, createUser, unique } from '../support/subjects.js';

let app: TestApp;

beforeAll(async () => {
  app = await createTestApp();
});
afterAll(() => app?.close());

interface Event {
  event: string;
  data: {
    data?: {
      accessChanges?: { revision: number; change: { revision: number; kinds: string[] } | null };
      viewerPermissionsChanged?: { revision: number; permissions: { action: string; scope: string }[] };
    };
    errors?: { extensions?: { code?: string } }[];
  } | null;
}

/** Opens the subscription over SSE; `next(n)` resolves with the next n events (in order). */
async function subscribe(
  after: number | undefined,
  auth?: Credentials,
  query = 'subscription ($after: Int) { accessChanges(after: $after) { revision change { revision kinds } } }',
) {
  const controller = new AbortController();
  const res = await app.request('/graphql', {
    method: 'POST',
    headers: { accept: 'text/event-stream' },
    ...(auth && { auth }),
    json: { query, variables: after === undefined ? {} : { after } },
    signal: controller.signal,
  });
  expect(res.headers.get('content-type')).toContain('text/event-stream');
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const events: Event[] = [];
  let ended = false;
  const pump = async (want: number) => {
    while (events.length < want && !ended) {
      const { value, done } = await reader.read();
      if (done) {
        ended = true;
        break;
      }
      buffer += decoder.decode(value, { stream: true });
      let cut = buffer.indexOf('\n\n');
      while (cut !== -1) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        const event = /^event: (.*)$/m.exec(block)?.[1];
        const data = /^data: ?(.*)$/m.exec(block)?.[1];
        if (event) events.push({ event, data: data ? JSON.parse(data) : null });
        cut = buffer.indexOf('\n\n');
      }
    }
  };
  let taken = 0;
  return {
    next: async (n = 1) => {
      await pump(taken + n);
      const got = events.slice(taken, taken + n);
      taken += got.length;
      return got;
    },
    close: () => controller.abort(),
  };
}

/** A role written through REST; returns its revision. */
async function write(): Promise<number> {
  const res = await app.request('/api/access-control/roles', {
    method: 'POST',
    json: { name: `custom:${unique('stream')}`, permissions: [] },
  });
  expect(res.status).toBe(200);
  return Number(res.headers.get('x-access-revision'));
}

describe('subscription accessChanges', () => {
  it('sends the changes after `after`, then each change as it commits, in revision order', async () => {
    const first = await write();
    const stream = await subscribe(first - 1);
    const [backlog] = await stream.next(1);
    expect(backlog?.data?.data?.accessChanges).toEqual({ revision: first, change: { revision: first, kinds: ['role.create'] } });
    const second = await write();
    const third = await write();
    const live = await stream.next(2);
    expect(live.map((e) => e.data?.data?.accessChanges?.revision)).toEqual([second, third]);
    stream.close();
  });

  it('a client resuming from the last revision it received gets exactly what it missed', async () => {
    const stream = await subscribe(undefined);
    const a = await write();
    const [got] = await stream.next(1);
    expect(got?.data?.data?.accessChanges?.revision).toBe(a);
    stream.close();
    const missed = [await write(), await write()];
    const resumed = await subscribe(a);
    expect((await resumed.next(2)).map((e) => e.data?.data?.accessChanges?.revision)).toEqual(missed);
    resumed.close();
  });

  it('needs access.changes:read; revoked mid-stream, an error event ends the stream', async () => {
    const viewer = await createUser(app, unique('stream-viewer'));
    const refused = await subscribe(undefined, viewer.auth);
    const [denied] = await refused.next(1);
    expect(denied?.data?.errors?.[0]?.extensions?.code).toBe('ACCESS_DENIED');

    const reader = await createUser(app, unique('stream-reader'));
    await assignUserRole(app, reader.id, 'fixed:accesschanges:reader');
    const stream = await subscribe(undefined, reader.auth);
    const before = await write();
    expect((await stream.next(1))[0]?.data?.data?.accessChanges?.revision).toBe(before);
    const roles = await app.request(`/api/access-control/users/${reader.id}/roles`);
    const uid = ((await roles.json()) as { uid: string; name: string }[]).find((r) => r.name === 'fixed:accesschanges:reader')?.uid;
    expect((await app.request(`/api/access-control/users/${reader.id}/roles/${uid}`, { method: 'DELETE' })).status).toBe(200);
    const rest = await stream.next(5);
    const codes = rest.flatMap((e) => e.data?.errors?.map((x) => x.extensions?.code) ?? []);
    expect(codes).toContain('ACCESS_DENIED');
    expect(rest.at(-1)?.event).toBe('complete');
  });
});

describe('subscription viewerPermissionsChanged', () => {
  it("sends the caller's permissions, then again when a change reaches them; ends when the account is disabled", async () => {
    const user = await createUser(app, unique('stream-viewer-perms'));
    const stream = await subscribe(
      undefined,
      user.auth,
      'subscription { viewerPermissionsChanged { revision permissions { action scope } } }',
    );
    const [first] = await stream.next(1);
    const held = (e: Event | undefined) => e?.data?.data?.viewerPermissionsChanged?.permissions.map((x) => x.action) ?? [];
    expect(held(first)).not.toContain('access.changes:read');
    await assignUserRole(app, user.id, 'fixed:accesschanges:reader');
    // A change through the REST door (the helper above writes the database directly): it wakes the stream.
    await write();
    const [second] = await stream.next(1);
    expect(held(second)).toContain('access.changes:read');
    expect((await app.request(`/api/admin/users/${user.id}/disable`, { method: 'POST' })).status).toBe(200);
    const rest = await stream.next(3);
    expect(rest.flatMap((e) => e.data?.errors?.map((x) => x.extensions?.code) ?? [])).toContain('CREDENTIALS_CHANGED');
    expect(rest.at(-1)?.event).toBe('complete');
  });
});

describe('the streams of a replica', () => {
  const admin = () => ({
    kind: 'user' as const,
    id: 1,
    login: 'admin',
    orgId: 1,
    orgRole: 'Admin' as const,
    isServiceAdmin: true,
    authMethod: 'basic' as const,
  });

  it('send a checkpoint at the revision reached while nothing changes', async () => {
    const streams = new ChangeStreams(
      { db: app.database.prisma, access: app.services.access, changes: app.services.changes },
      { checkpointMs: 50 },
    );
    const head = await write();
    const stream = await streams.open(admin(), { after: head });
    expect((await stream.next()).value).toEqual({ revision: head, change: null });
    await stream.return(undefined);
    expect(streams.count).toBe(0);
  });

  it("send a checkpoint while idle though the replica's poll wakes the stream every second", async () => {
    const streams = new ChangeStreams(
      { db: app.database.prisma, access: app.services.access, changes: app.services.changes },
      { checkpointMs: 1500 },
    );
    const head = await write();
    const stream = await streams.open(admin(), { after: head });
    expect((await stream.next()).value).toEqual({ revision: head, change: null });
    await stream.return(undefined);
  });

  it(`hold at most ${MAX_STREAMS_PER_PRINCIPAL} per caller (429 TOO_MANY_STREAMS), and end at closeAll`, async () => {
    const streams = new ChangeStreams(
      { db: app.database.prisma, access: app.services.access, changes: app.services.changes },
      { checkpointMs: 60_000 },
    );
    const head = await write();
    const open = await Promise.all(Array.from({ length: MAX_STREAMS_PER_PRINCIPAL }, () => streams.open(admin(), { after: head - 1 })));
    for (const stream of open) expect((await stream.next()).value).toMatchObject({ revision: head });
    await expect(streams.open(admin(), { after: head })).rejects.toMatchObject({ code: 'TOO_MANY_STREAMS' });
    const pending = open.map((stream) => stream.next());
    streams.closeAll();
    for (const result of await Promise.all(pending)) expect(result.done).toBe(true);
    expect(streams.count).toBe(0);
    await expect(streams.open(admin(), { after: head })).rejects.toMatchObject({ code: 'DATABASE_UNAVAILABLE' });
  });
});
