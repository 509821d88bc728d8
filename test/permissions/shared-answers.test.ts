/**
 * The caches of the warm permission listing never answer stale: the listing's bytes,
 * serialized and compressed once per cached index (src/http/answer-cache.ts), and the member a
 * listing names, found once per access generation (src/modules/permissions/members.ts). Each
 * step warms the cache with a request, changes something through a door, and asks again: the
 * very next request sees the change, compressed or not, on REST and GraphQL.
 */
import { createServer, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, authHeader, createTestApp, type TestApp } from '../support/app.js';
import { expectOutcome, gql, rest } from '../support/requests.js';
import { type Actor, createRole, createUser, p } from '../support/subjects.js';

let app: TestApp;
let subject: Actor;

/** Enough permissions for a listing past the compression threshold (1 KiB). */
const MANY = Array.from({ length: 40 }, (_, i) => p('shared:act', `shared:id:${i}`));

/** The subject's listing as the admin reads it with `acceptEncoding`, decoded, and how it was encoded. */
async function listing(
  acceptEncoding: string,
): Promise<{ pairs: { action: string; scope: string }[]; encoding: string | null; vary: string | null }> {
  const res = await app.request(`/api/access-control/users/${subject.id}/permissions`, { headers: { 'accept-encoding': acceptEncoding } });
  expect(res.status).toBe(200);
  const bytes = Buffer.from(await res.arrayBuffer());
  const encoding = res.headers.get('content-encoding');
  const text = encoding === 'br' ? brotliDecompressSync(bytes) : encoding === 'gzip' ? gunzipSync(bytes) : bytes;
  return { pairs: JSON.parse(text.toString('utf8')), encoding, vary: res.headers.get('vary') };
}

const holds = (pairs: { action: string; scope: string }[], action: string) => pairs.some((x) => x.action === action);

/** The subject's permissions as GraphQL `userPermissions` lists them. */
async function graphqlActions(): Promise<string[]> {
  const out = await gql(app, 'query($u: Int!) { userPermissions(userId: $u) { action scope } }', { u: subject.id });
  expectOutcome(out, 200);
  return ((out.data?.userPermissions ?? []) as { action: string }[]).map((x) => x.action);
}

beforeAll(async () => {
  app = await createTestApp();
  subject = await createUser(app, 'shared-subject', { orgRole: 'Viewer' });
  await createRole(app, 'shared-many', MANY);
  await createRole(app, 'shared-extra', [p('shared:extra', 'shared:id:x')]);
  expectOutcome(await rest(app, 'POST', `/api/access-control/users/${subject.id}/roles`, { json: { roleUid: 'shared-many' } }), 200);
});
afterAll(() => app.close());

describe('a listing answered from its cached bytes', () => {
  it.each([
    ['br', 'br'],
    ['gzip', 'gzip'],
    ['gzip;q=0.5, br;q=0.1', 'gzip'],
    ['identity', null],
    ['br;q=0, gzip;q=0', null],
  ])('Accept-Encoding %s: encoded %s, the same JSON as uncompressed, Vary set', async (accept, expected) => {
    const plain = await listing('identity');
    const first = await listing(accept);
    const again = await listing(accept); // the cached bytes
    expect([first.encoding, again.encoding]).toEqual([expected, expected]);
    expect(first.pairs).toEqual(plain.pairs);
    expect(again.pairs).toEqual(plain.pairs);
    expect(again.vary?.toLowerCase()).toContain('accept-encoding');
    expect(holds(plain.pairs, 'shared:act')).toBe(true);
  });

  it('a role added, then removed, is in the next listing and then out of it, in every encoding', async () => {
    for (const accept of ['br', 'gzip', 'identity']) expect(holds((await listing(accept)).pairs, 'shared:extra')).toBe(false);
    expectOutcome(await rest(app, 'POST', `/api/access-control/users/${subject.id}/roles`, { json: { roleUid: 'shared-extra' } }), 200);
    for (const accept of ['br', 'gzip', 'identity']) expect(holds((await listing(accept)).pairs, 'shared:extra')).toBe(true);
    expect(await graphqlActions()).toContain('shared:extra');
    expectOutcome(await rest(app, 'DELETE', `/api/access-control/users/${subject.id}/roles/shared-extra`), 200);
    for (const accept of ['br', 'gzip', 'identity']) expect(holds((await listing(accept)).pairs, 'shared:extra')).toBe(false);
    expect(await graphqlActions()).not.toContain('shared:extra');
  });

  it("the caller's own map (user/permissions) too: a change to the role it holds shows at the next request", async () => {
    const own = async () => {
      const res = await app.request('/api/access-control/user/permissions', { auth: subject.auth, headers: { 'accept-encoding': 'br' } });
      const bytes = Buffer.from(await res.arrayBuffer());
      return JSON.parse((res.headers.get('content-encoding') === 'br' ? brotliDecompressSync(bytes) : bytes).toString('utf8'));
    };
    expect((await own())['shared:act']).toHaveLength(MANY.length);
    const update = { name: 'custom:shared-many', version: 2, permissions: [p('shared:act', 'shared:id:0')] };
    expectOutcome(await rest(app, 'PUT', '/api/access-control/roles/shared-many', { json: update }), 200);
    expect((await own())['shared:act']).toEqual(['shared:id:0']);
    const restore = { name: 'custom:shared-many', version: 3, permissions: MANY };
    expectOutcome(await rest(app, 'PUT', '/api/access-control/roles/shared-many', { json: restore }), 200);
    expect((await own())['shared:act']).toHaveLength(MANY.length);
  });
});

describe('the role listing answered from its cached bytes', () => {
  /** Role names of GET /api/access-control/roles as `auth` reads it with `acceptEncoding`, decoded. */
  const names = async (acceptEncoding: string, query = '', auth: Actor | typeof ADMIN = ADMIN) => {
    const res = await app.request(`/api/access-control/roles${query}`, { auth, headers: { 'accept-encoding': acceptEncoding } });
    expect(res.status).toBe(200);
    const bytes = Buffer.from(await res.arrayBuffer());
    const encoding = res.headers.get('content-encoding');
    const text = encoding === 'br' ? brotliDecompressSync(bytes) : encoding === 'gzip' ? gunzipSync(bytes) : bytes;
    return (JSON.parse(text.toString('utf8')) as { name: string; hidden: boolean }[]).map((r) => r.name);
  };

  it('a role created, then deleted, is in the next listing and then out of it, in every encoding, hidden ones apart', async () => {
    for (const accept of ['br', 'gzip', 'identity']) {
      const before = await names(accept); // warms the listing and its bytes
      const created = await rest(app, 'POST', '/api/access-control/roles', {
        json: { uid: `listed-${accept}`, name: `custom:listed-${accept}`, permissions: [p('listed:act', 'listed:id:1')] },
      });
      expectOutcome(created, 200);
      const role = created.body as { uid: string; name: string };
      expect(before).not.toContain(role.name);
      expect(await names(accept)).toContain(role.name);
      expectOutcome(await rest(app, 'DELETE', `/api/access-control/roles/${role.uid}`), 200);
      expect(await names(accept)).toEqual(before);
    }
    const visible = await names('br');
    const all = await names('br', '?includeHidden=true');
    expect(all.length).toBeGreaterThan(visible.length);
    expect(visible.every((name) => all.includes(name))).toBe(true);
  });

  it('a warm listing is still refused to a caller without roles:read', async () => {
    await names('br'); // the admin warms it
    const res = await app.request('/api/access-control/roles', { auth: subject, headers: { 'accept-encoding': 'br' } });
    expect(res.status).toBe(403);
  });
});

describe('over real HTTP, behind the compression middleware (app.listener, as main.ts serves it)', () => {
  it('the cached bytes go out once encoded, as the middleware would have chosen, Vary once', async () => {
    const server = createServer(app.listener);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    const get = (acceptEncoding: string) =>
      new Promise<{ headers: IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
        const headers = { authorization: authHeader(ADMIN), 'accept-encoding': acceptEncoding };
        const req = httpRequest(
          { host: '127.0.0.1', port, path: `/api/access-control/users/${subject.id}/permissions`, headers },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
            res.on('error', reject);
          },
        );
        req.on('error', reject);
        req.end();
      });
    try {
      const plain = await get('identity');
      for (const [accept, decode] of [
        ['br', brotliDecompressSync],
        ['gzip', gunzipSync],
      ] as const) {
        await get(accept); // warms the cached bytes
        const answer = await get(accept);
        expect(answer.headers['content-encoding']).toBe(accept);
        expect(answer.headers.vary?.match(/accept-encoding/gi)).toHaveLength(1);
        expect(Number(answer.headers['content-length'])).toBe(answer.body.byteLength);
        expect(decode(answer.body).toString('utf8')).toBe(plain.body.toString('utf8'));
      }
      expect(plain.headers['content-encoding']).toBeUndefined();
    } finally {
      server.close();
    }
  });
});

describe('the member a listing names, cached under the access generation', () => {
  it('a warm listing of another user reads no SQL statement', async () => {
    await listing('br');
    await app.services.sessions.seenWritesSettled();
    app.resetQueries();
    await listing('br');
    expect(app.queries).toEqual([]);
  });

  it('an org role change (REST, then GraphQL) shows at the next listing on both doors', async () => {
    expect(holds((await listing('br')).pairs, 'serviceaccounts:read')).toBe(false); // a Viewer's
    expectOutcome(await rest(app, 'PATCH', `/api/org/users/${subject.id}`, { json: { role: 'Editor' } }), 200);
    expect(holds((await listing('br')).pairs, 'serviceaccounts:read')).toBe(true);
    expect(await graphqlActions()).toContain('serviceaccounts:read');
    const back = await gql(app, 'mutation($o: Int!, $u: Int!) { updateOrgUserRole(orgId: $o, userId: $u, role: Viewer) { role } }', {
      o: 1,
      u: subject.id,
    });
    expectOutcome(back, 200);
    expect(holds((await listing('identity')).pairs, 'serviceaccounts:read')).toBe(false);
    expect(await graphqlActions()).not.toContain('serviceaccounts:read');
  });

  it('a write of another connection (the generation moved by the change counter) is seen at the next listing', async () => {
    const where = { orgId_userId: { orgId: 1, userId: subject.id } };
    expect(holds((await listing('gzip')).pairs, 'serviceaccounts:read')).toBe(false);
    await app.database.prisma.orgUser.update({ where, data: { role: 'Editor' } });
    // The test's client is the service's own connection: its commit is announced as a foreign
    // one would be seen (platform/database.ts change counter), by the invalidation it triggers.
    app.services.access.invalidate();
    expect(holds((await listing('gzip')).pairs, 'serviceaccounts:read')).toBe(true);
    await app.database.prisma.orgUser.update({ where, data: { role: 'Viewer' } });
    app.services.access.invalidate();
    expect(holds((await listing('gzip')).pairs, 'serviceaccounts:read')).toBe(false);
  });

  it('a member removed from the organization is 404 at the next request, on both doors', async () => {
    const leaving = await createUser(app, 'shared-leaving', { orgRole: 'Viewer' });
    expectOutcome(await rest(app, 'GET', `/api/access-control/users/${leaving.id}/permissions`), 200);
    expectOutcome(await gql(app, 'query($u: Int!) { userPermissions(userId: $u) { action } }', { u: leaving.id }), 200);
    expectOutcome(await rest(app, 'DELETE', `/api/org/users/${leaving.id}`), 200);
    expectOutcome(await rest(app, 'GET', `/api/access-control/users/${leaving.id}/permissions`), 404, 'USER_NOT_FOUND');
    const out = await gql(app, 'query($u: Int!) { userPermissions(userId: $u) { action } }', { u: leaving.id });
    expect((out.body as { errors?: { extensions?: { code?: string } }[] }).errors?.[0]?.extensions?.code).toBe('USER_NOT_FOUND');
  });
});
