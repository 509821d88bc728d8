/**
 * Paging of the role listing on both doors (src/modules/roles/listing-page.ts): REST
 * keeps Grafana's array without `page`/`perpage` and answers `{totalCount, roles, page, perPage}`
 * with them; GraphQL `rolesConnection` pages with `first`/`after` or `last`/`before`. Both follow every list's
 * paging rule (shared/paging.ts: 400 VALIDATION_FAILED above 1000) and the same check.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../support/app.js';
import { watchForeignCommits } from '../support/changes.js';
import { expectGraphqlError, readJson } from '../support/requests.js';
import { type Actor, createRole } from '../support/subjects.js';
import { rolesRestScene } from './roles-rest-scene.js';

let app: TestApp;
let viewer: Actor;
let writer: Actor;
let otherAdmin: Actor;

type RoleRow = { uid: string; name: string; hidden: boolean };
type RolePage = { totalCount: number; roles: RoleRow[]; page: number; perPage: number };
type Connection = {
  rolesConnection: {
    totalCount: number;
    edges: { cursor: string; node: { uid: string; permissions?: { action: string }[] } }[];
    pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
  };
};

const CONNECTION = `query ($first: Int, $after: String, $hidden: Boolean, $delegatable: Boolean) {
  rolesConnection(first: $first, after: $after, includeHidden: $hidden, delegatable: $delegatable) {
    totalCount edges { cursor node { uid } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
  }
}`;

beforeAll(async () => {
  ({ app, viewer, writer, otherAdmin } = await rolesRestScene());
  for (let i = 0; i < 5; i++) await createRole(app, `paging_${i}`, [{ action: 'teams:read', scope: 'teams:*' }]);
  await createRole(app, 'paging_hidden', [], { hidden: true });
});
afterAll(() => app.close());

async function listUids(query = '', auth?: Actor): Promise<string[]> {
  const res = await app.request(`/api/access-control/roles${query}`, auth ? { auth } : {});
  expect(res.status).toBe(200);
  return ((await res.json()) as RoleRow[]).map((r) => r.uid);
}

/** Every page of REST `perpage`, in order. */
async function restPages(perpage: number, extra = ''): Promise<{ uids: string[]; pages: RolePage[] }> {
  const pages: RolePage[] = [];
  for (let page = 1; ; page++) {
    const res = await app.request(`/api/access-control/roles?perpage=${perpage}&page=${page}${extra}`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as RolePage;
    pages.push(body);
    if (body.roles.length < perpage) break;
  }
  return { uids: pages.flatMap((p) => p.roles.map((r) => r.uid)), pages };
}

/** Every page of rolesConnection with `first`, following endCursor. */
async function connectionPages(first: number, variables: Record<string, unknown> = {}): Promise<Connection['rolesConnection'][]> {
  const pages: Connection['rolesConnection'][] = [];
  let after: string | null = null;
  do {
    const res = await app.graphql<Connection>(CONNECTION, { first, after, ...variables });
    expect(res.body.errors).toBeUndefined();
    const page = res.body.data?.rolesConnection as Connection['rolesConnection'];
    pages.push(page);
    after = page.pageInfo.hasNextPage ? page.pageInfo.endCursor : null;
  } while (after);
  return pages;
}

describe('REST GET /api/access-control/roles paging', () => {
  it('without page or perpage answers the unpaged array (Grafana)', async () => {
    const res = await app.request('/api/access-control/roles');
    expect(Array.isArray(await res.json())).toBe(true);
  });

  it('perpage pages walk the whole listing in its order, with totalCount, page and perPage', async () => {
    const all = await listUids();
    const { uids, pages } = await restPages(2);
    expect(uids).toEqual(all);
    expect(pages[0]).toMatchObject({ totalCount: all.length, page: 1, perPage: 2 });
    expect(pages[0]?.roles).toHaveLength(2);
    expect(pages.at(-1)?.page).toBe(Math.floor(all.length / 2) + 1);
  });

  it('pages read while no listing is cached (right after a write) are the same pages', async () => {
    for (const extra of ['', '&includeHidden=true']) {
      const all = await listUids(extra.replace('&', '?'));
      const uids: string[] = [];
      for (let page = 1; page <= Math.ceil(all.length / 3) + 1; page++) {
        app.services.access.invalidate(); // as any write does: the next page is read from the database
        const body = (await (await app.request(`/api/access-control/roles?perpage=3&page=${page}${extra}`)).json()) as RolePage;
        expect(body.totalCount).toBe(all.length);
        uids.push(...body.roles.map((r) => r.uid));
      }
      expect(uids).toEqual(all);
    }
  });

  it('includeHidden and delegatable apply to pages as to the array', async () => {
    expect((await restPages(3, '&includeHidden=true')).uids).toEqual(await listUids('?includeHidden=true'));
    expect((await listUids('?includeHidden=true')).includes('paging_hidden')).toBe(true);
    const delegatable = await listUids('?delegatable=true', writer);
    const res = await app.request('/api/access-control/roles?delegatable=true&perpage=1000', { auth: writer });
    expect(((await res.json()) as RolePage).roles.map((r) => r.uid)).toEqual(delegatable);
  });

  it('page alone pages with the default perPage 1000; unreadable or small values take the defaults', async () => {
    const all = await listUids();
    for (const query of ['?page=1', '?perpage=0', '?perpage=ten&page=-3', '?page=']) {
      const body = (await (await app.request(`/api/access-control/roles${query}`)).json()) as RolePage;
      expect(body).toMatchObject({ totalCount: all.length, page: 1, perPage: 1000 });
      expect(body.roles.map((r) => r.uid)).toEqual(all);
    }
    const beyond = (await (await app.request('/api/access-control/roles?page=99&perpage=5')).json()) as RolePage;
    expect(beyond).toEqual({ totalCount: all.length, roles: [], page: 99, perPage: 5 });
  });

  it('perpage above 1000 is refused with 400 VALIDATION_FAILED (every list’s rule)', async () => {
    const res = await app.request('/api/access-control/roles?perpage=1001');
    expect(res.status).toBe(400);
    expect(await readJson(res)).toMatchObject({
      code: 'VALIDATION_FAILED',
      message: expect.stringContaining('perpage must be at most 1000'),
    });
  });

  it('a page needs roles:read like the array: 403 for a viewer, 401 without credentials', async () => {
    const denied = await app.request('/api/access-control/roles?perpage=2', { auth: viewer });
    expect(denied.status).toBe(403);
    expect((await readJson(denied)).code).toBe('ACCESS_DENIED');
    expect((await app.request('/api/access-control/roles?perpage=2', { auth: null })).status).toBe(401);
  });
});

describe('GraphQL rolesConnection', () => {
  it('first/after pages walk the same listing as REST, with totalCount and pageInfo', async () => {
    const all = await listUids();
    const pages = await connectionPages(2);
    expect(pages.flatMap((p) => p.edges.map((e) => e.node.uid))).toEqual(all);
    expect(pages[0]?.totalCount).toBe(all.length);
    expect(pages[0]?.pageInfo).toMatchObject({ hasPreviousPage: false, hasNextPage: true, startCursor: pages[0]?.edges[0]?.cursor });
    expect(pages.at(-1)?.pageInfo.hasNextPage).toBe(false);
    expect(pages.at(-1)?.pageInfo.hasPreviousPage).toBe(true);
    const hidden = await connectionPages(4, { hidden: true });
    expect(hidden.flatMap((p) => p.edges.map((e) => e.node.uid))).toEqual(await listUids('?includeHidden=true'));
  });

  it('last/before pages walk the same listing backwards, each in listing order', async () => {
    const all = await listUids();
    const query = `query ($before: String) { rolesConnection(last: 2, before: $before) {
      edges { cursor node { uid } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }`;
    const forwards = await connectionPages(1000);
    let before: string | null = forwards[0]?.pageInfo.endCursor ?? null;
    const pages: Connection['rolesConnection'][] = [];
    // From the last role's cursor back to the start: every role but the last, in order.
    while (before) {
      const res = await app.graphql<Connection>(query, { before });
      const page = res.body.data?.rolesConnection as Connection['rolesConnection'];
      expect(page.pageInfo.hasNextPage).toBe(true);
      pages.unshift(page);
      before = page.pageInfo.hasPreviousPage ? page.pageInfo.startCursor : null;
    }
    expect(pages.flatMap((p) => p.edges.map((e) => e.node.uid))).toEqual(all.slice(0, -1));
    expect(pages[0]?.pageInfo.hasPreviousPage).toBe(false);
    expectGraphqlError(
      await app.graphql(query.replace('last: 2, ', 'last: 2, first: 2, '), { before: pages[0]?.pageInfo.endCursor }),
      'VALIDATION_FAILED',
    );
  });

  it('pages read while no listing is cached are the same pages, with their nodes’ permissions', async () => {
    const all = await listUids();
    const query = `query ($after: String) { rolesConnection(first: 4, after: $after) {
      totalCount edges { node { uid permissions { action } } } pageInfo { hasNextPage endCursor } } }`;
    const uids: string[] = [];
    let after: string | null = null;
    do {
      app.services.access.invalidate();
      const res = await app.graphql<Connection>(query, { after });
      const page = res.body.data?.rolesConnection as Connection['rolesConnection'];
      expect(page.totalCount).toBe(all.length);
      uids.push(...page.edges.map((e) => e.node.uid));
      const own = page.edges.find((e) => e.node.uid === 'paging_1');
      if (own) expect(own.node.permissions).toEqual([{ action: 'teams:read' }]);
      after = page.pageInfo.hasNextPage ? page.pageInfo.endCursor : null;
    } while (after);
    expect(uids).toEqual(all);
  });

  it('delegatable pages list what REST lists for the same caller', async () => {
    const res = await app.graphql<Connection>(CONNECTION, { first: 1000, delegatable: true }, { auth: writer });
    expect(res.body.data?.rolesConnection.edges.map((e) => e.node.uid)).toEqual(await listUids('?delegatable=true', writer));
  });

  it("nodes load their permissions, in the listing's order", async () => {
    const res = await app.graphql<Connection>('{ rolesConnection(first: 1000) { edges { node { uid permissions { action } } } } }');
    const edges = res.body.data?.rolesConnection.edges ?? [];
    expect(edges.map((e) => e.node.uid)).toEqual(await listUids());
    expect(edges.find((e) => e.node.uid === 'paging_0')?.node.permissions).toEqual([{ action: 'teams:read' }]);
  });

  it('first above 1000 and a cursor not of this listing are refused with VALIDATION_FAILED', async () => {
    for (const variables of [{ first: 1001 }, { after: 'bm90LWEtY3Vyc29y' }, { after: '!!' }]) {
      expectGraphqlError(await app.graphql(CONNECTION, variables), 'VALIDATION_FAILED');
    }
  });

  it('needs roles:read: ACCESS_DENIED for a viewer', async () => {
    expectGraphqlError(await app.graphql(CONNECTION, { first: 2 }, { auth: viewer }), 'ACCESS_DENIED');
  });
});

describe('the listing cache', () => {
  const roleReads = () => app.queries.filter((sql) => /FROM `main`\.`Role`/.test(sql)).length;

  it('a warm listing reads no role row; each organization lists its own roles', async () => {
    await listUids();
    app.resetQueries();
    await listUids();
    await app.request('/api/access-control/roles?perpage=3&page=2');
    expect(roleReads()).toBe(0);
    const org2 = await listUids('', otherAdmin);
    expect(org2.some((uid) => uid.startsWith('paging_'))).toBe(false);
    expect(org2).toContain((await app.database.prisma.role.findFirstOrThrow({ where: { orgId: 0, hidden: false } })).uid);
  });

  it('a role created, renamed or deleted through either door is listed so at the next request', async () => {
    await listUids();
    const created = await app.request('/api/access-control/roles', {
      method: 'POST',
      json: { uid: 'paging_new', name: 'custom:paging-new', permissions: [] },
    });
    expect(created.status).toBe(200);
    expect(await listUids()).toContain('paging_new');
    const first = await app.graphql<Connection>(CONNECTION, { first: 1000 });
    expect(first.body.data?.rolesConnection.edges.map((e) => e.node.uid)).toContain('paging_new');

    const renamed = await app.graphql(
      'mutation { updateRole(uid: "paging_new", input: { version: 1, name: "custom:paging-renamed" }) { name } }',
    );
    expect(renamed.body.errors).toBeUndefined();
    const names = ((await (await app.request('/api/access-control/roles')).json()) as RoleRow[]).map((r) => r.name);
    expect(names).toContain('custom:paging-renamed');
    expect(names).not.toContain('custom:paging-new');

    expect((await app.request('/api/access-control/roles/paging_new', { method: 'DELETE' })).status).toBe(200);
    expect(await listUids()).not.toContain('paging_new');
  });

  it('a role written by another connection (another process, a replica) is listed so at the next request', async () => {
    const { openDatabase } = await import('../../src/platform/database.js');
    const other = await openDatabase({ databaseUrl: app.config.databaseUrl, migrate: false });
    try {
      await listUids();
      // On PostgreSQL the app learns of each commit by its notification, moments after: wait for it.
      let commits = watchForeignCommits(app.database.prisma);
      await other.prisma.role.create({ data: { uid: 'paging_foreign', orgId: 1, name: 'custom:paging-foreign' } });
      await commits.seen();
      expect(await listUids()).toContain('paging_foreign');
      expect((await restPages(1000)).uids).toContain('paging_foreign');
      commits = watchForeignCommits(app.database.prisma);
      await other.prisma.role.delete({ where: { uid: 'paging_foreign' } });
      await commits.seen();
      expect(await listUids()).not.toContain('paging_foreign');
    } finally {
      await other.close();
    }
  });
});
