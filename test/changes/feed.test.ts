/**
 * The change feed and read-your-writes, on both doors (SQLite, and PostgreSQL under
 * `npm run test:postgres`): every write that records audit events appends one change record in
 * its transaction and answers its revision; the feed pages through them in revision order, walled
 * by organization and permission; pruned revisions answer 410; "at least revision R" is met by
 * every replica at once and refused when R was never issued.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import type { ChangeJson, ChangesPage } from '../../src/modules/changes/service.js';
import type { Database } from '../../src/platform/database.js';
import { ADMIN, authHeader, createTestApp, type TestApp } from '../support/app.js';
import { openReplica } from '../support/replica.js';
import { expectOutcome, rest } from '../support/requests.js';
import { addOrgMember, assignUserRole, createOrg, createRole, createUser, p, unique } from '../support/subjects.js';

const FEED = '/api/access-control/changes';
let app: TestApp;
let otherDb: Database;
let other: App;

beforeAll(async () => {
  app = await createTestApp();
  ({ db: otherDb, app: other } = await openReplica(app));
});
afterAll(async () => {
  await otherDb?.close();
  await app?.close();
});

type Change = ChangeJson;
type Page = ChangesPage;

/** The feed after `after`, as the admin (or `auth`). */
async function feed(after: number, options: Parameters<typeof rest>[3] = {}): Promise<Page> {
  const res = await rest(app, 'GET', `${FEED}?after=${after}&limit=1000`, options);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as unknown as Page;
}

/** A write through REST; returns its answered revision. */
async function write(method: string, path: string, json?: unknown): Promise<number> {
  const res = await app.request(path, { method, ...(json !== undefined && { json }) });
  expect([200, 201], await res.clone().text()).toContain(res.status);
  const revision = Number(res.headers.get('x-access-revision'));
  expect(revision).toBeGreaterThan(0);
  return revision;
}

describe('change records and their revisions', () => {
  it('each write answers the revision of its one change record, which names what it touched', async () => {
    const start = (await feed(0)).head;
    const user = await createUser(app, unique('feed-user'));
    const role = await createRole(app, unique('feed-role'), [p('feed:read')]);
    const assigned = await write('POST', `/api/access-control/users/${user.id}/roles`, { roleUid: role.uid });
    const renamed = await write('PUT', `/api/access-control/roles/${role.uid}`, {
      version: 1,
      name: role.name,
      permissions: [{ action: 'feed:write' }],
    });
    const disabled = await write('POST', `/api/admin/users/${user.id}/disable`);
    expect(assigned).toBeGreaterThan(start);
    expect(renamed).toBeGreaterThan(assigned);
    expect(disabled).toBeGreaterThan(renamed);

    const page = await feed(start);
    expect(page.head).toBe(disabled);
    expect(page.next).toBe(disabled);
    expect(page.changes.map((c) => c.revision)).toEqual([assigned, renamed, disabled]);
    const [a, r, d] = page.changes as [Change, Change, Change];
    expect(a).toMatchObject({
      orgId: 1,
      kinds: ['user_role.add'],
      users: [user.id],
      roles: [role.uid],
      actor: { kind: 'user', login: ADMIN.login },
    });
    expect(r).toMatchObject({ orgId: 1, kinds: ['role.update'], users: [], roles: [role.uid] });
    expect(d).toMatchObject({ orgId: 0, users: [user.id], roles: [] });
    // Nothing new: the same answer.
    expect(await feed(disabled)).toEqual({ changes: [], next: disabled, head: disabled });
  });

  it('GraphQL writes answer the revision in extensions; the GraphQL feed answers what REST answers', async () => {
    const start = (await feed(0)).head;
    const res = await app.request('/graphql', {
      method: 'POST',
      json: { query: `mutation { createRole(input: { name: "custom:${unique('gql-feed')}", permissions: [] }) { uid } }` },
    });
    const body = (await res.json()) as { data?: unknown; errors?: unknown; extensions?: { revision?: number } };
    expect(body.errors).toBeUndefined();
    expect(body.extensions?.revision).toBeGreaterThan(start);
    const viaGraphql = await app.graphql<{ accessChanges: Page }>(
      `query ($after: Int) { accessChanges(after: $after, limit: 1000) { next head changes { revision orgId kinds users roles teams apiKeys actor { kind id login } } } }`,
      { after: start },
    );
    const viaRest = await feed(start);
    expect(viaGraphql.body.data?.accessChanges).toEqual({
      ...viaRest,
      changes: viaRest.changes.map(({ revision, orgId, kinds, users, roles, teams, apiKeys, actor }) => ({
        revision,
        orgId,
        kinds,
        users,
        roles,
        teams,
        apiKeys,
        actor,
      })),
    });
  });

  it('a read-only request answers no revision', async () => {
    const res = await app.request('/api/access-control/roles');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-access-revision')).toBeNull();
  });

  it('pages in revision order: next of a full page is its last revision', async () => {
    const start = (await feed(0)).head;
    const made: number[] = [];
    for (let i = 0; i < 5; i++) {
      made.push(await write('POST', '/api/access-control/roles', { name: `custom:${unique('page')}`, permissions: [] }));
    }
    const first = (await rest(app, 'GET', `${FEED}?after=${start}&limit=2`)).body as unknown as Page;
    expect(first.changes.map((c) => c.revision)).toEqual(made.slice(0, 2));
    expect(first.next).toBe(made[1]);
    const second = (await rest(app, 'GET', `${FEED}?after=${first.next}&limit=2`)).body as unknown as Page;
    expect(second.changes.map((c) => c.revision)).toEqual(made.slice(2, 4));
  });
});

describe('who may read the feed', () => {
  it('needs access.changes:read; an organization reader sees its organization and global changes only', async () => {
    const viewer = await createUser(app, unique('feed-viewer'));
    expectOutcome(await rest(app, 'GET', FEED, { auth: viewer.auth }), 403, 'ACCESS_DENIED');

    const org2 = await createOrg(app, unique('feed-org'));
    await addOrgMember(app, org2.id, 1, 'Admin');
    const reader = await createUser(app, unique('feed-reader'));
    await assignUserRole(app, reader.id, 'fixed:accesschanges:reader');
    const start = (await feed(0)).head;
    const inOrg1 = await write('POST', '/api/access-control/roles', { name: `custom:${unique('org1')}`, permissions: [] });
    const res = await app.request('/api/access-control/roles', {
      method: 'POST',
      orgId: org2.id,
      json: { name: `custom:${unique('org2')}`, permissions: [] },
    });
    expect(res.status).toBe(200);
    const inOrg2 = Number(res.headers.get('x-access-revision'));
    const global = await write('POST', '/api/admin/users', { login: unique('feed-global'), password: 'a-long-password-1' });

    const seen = (await feed(start, { auth: reader.auth })).changes.map((c) => c.revision);
    expect(seen).toEqual([inOrg1, global]);
    const all = (await feed(start)).changes.map((c) => c.revision);
    expect(all).toEqual([inOrg1, inOrg2, global]);
  });
});

describe('bad and old revisions', () => {
  it('400 for a malformed after or a limit above 1000; 400 REVISION_NOT_ISSUED past the head', async () => {
    expectOutcome(await rest(app, 'GET', `${FEED}?after=abc`), 400, 'VALIDATION_FAILED');
    expectOutcome(await rest(app, 'GET', `${FEED}?after=-1`), 400, 'VALIDATION_FAILED');
    expectOutcome(await rest(app, 'GET', `${FEED}?limit=1001`), 400, 'VALIDATION_FAILED');
    const { head } = await feed(0);
    const past = await rest(app, 'GET', `${FEED}?after=${head + 1000}`);
    expectOutcome(past, 400, 'REVISION_NOT_ISSUED');
  });

  it('410 CHANGES_EXPIRED after the retention, with the head to start again from', async () => {
    const old = await write('POST', '/api/access-control/roles', { name: `custom:${unique('old')}`, permissions: [] });
    // Records up to `old` were written longer ago than the retention.
    const longAgo = new Date(Date.now() - (app.config.changesRetentionHours + 1) * 3_600_000);
    await app.database.prisma.accessChange.updateMany({ where: { revision: { lte: old } }, data: { created: longAgo } });
    const kept = await write('POST', '/api/access-control/roles', { name: `custom:${unique('kept')}`, permissions: [] });
    expect(await app.services.changes.prune()).toBeGreaterThan(0);
    const expired = await rest(app, 'GET', `${FEED}?after=${old - 1}`);
    expectOutcome(expired, 410, 'CHANGES_EXPIRED');
    expect(expired.body).toMatchObject({ head: kept, prunedThrough: old });
    // From the horizon on, the feed answers again; without `after`, from the oldest kept.
    expect((await feed(old)).changes.map((c) => c.revision)).toEqual([kept]);
    const oldestRes = await rest(app, 'GET', FEED);
    expect(oldestRes.status, JSON.stringify(oldestRes.body)).toBe(200);
    const oldest = oldestRes.body as unknown as Page;
    expect(oldest.changes.map((c) => c.revision)).toEqual([kept]);
    expect(await app.services.changes.prune()).toBe(0);
  });
});

describe('read-your-writes', () => {
  it('"at least" a revision written through one replica is met by the other at once', async () => {
    const user = await createUser(app, unique('ryw'));
    const role = await createRole(app, unique('ryw-role'), [p('ryw:read')]);
    const viaOther = (path: string, headers: Record<string, string>) =>
      Promise.resolve(other.yoga.fetch(`http://test${path}`, { headers: { authorization: authHeader(ADMIN), ...headers } }));
    // The other replica caches the user's permissions first.
    expect(await (await viaOther(`/api/access-control/users/${user.id}/permissions`, {})).json()).not.toContainEqual(p('ryw:read'));
    for (let i = 0; i < 10; i++) {
      const added = await write('POST', `/api/access-control/users/${user.id}/roles`, { roleUid: role.uid });
      const read = await viaOther(`/api/access-control/users/${user.id}/permissions`, { 'x-access-revision-at-least': String(added) });
      expect(read.status).toBe(200);
      expect(await read.json()).toContainEqual(p('ryw:read'));
      const removed = await write('DELETE', `/api/access-control/users/${user.id}/roles/${role.uid}`);
      const again = await viaOther(`/api/access-control/users/${user.id}/permissions`, { 'x-access-revision-at-least': String(removed) });
      expect(await again.json()).not.toContainEqual(p('ryw:read'));
    }
  });

  it('a revision never issued is 400 REVISION_NOT_ISSUED, a malformed one 400, on both doors', async () => {
    const head = await write('POST', '/api/access-control/roles', { name: `custom:${unique('head')}`, permissions: [] });
    const at = (value: string) => ({ headers: { 'x-access-revision-at-least': value } });
    expectOutcome(await rest(app, 'GET', '/api/access-control/roles', at(String(head))), 200);
    expectOutcome(await rest(app, 'GET', '/api/access-control/roles', at(String(head + 50))), 400, 'REVISION_NOT_ISSUED');
    expectOutcome(await rest(app, 'GET', '/api/access-control/roles', at('soon')), 400, 'VALIDATION_FAILED');
    const graphql = await app.request('/graphql', {
      method: 'POST',
      headers: { 'x-access-revision-at-least': String(head + 50) },
      json: { query: '{ viewer { login } }' },
    });
    const body = (await graphql.json()) as { errors?: { extensions?: { code?: string } }[] };
    expect(body.errors?.[0]?.extensions?.code).toBe('REVISION_NOT_ISSUED');
  });
});
