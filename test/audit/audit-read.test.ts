/**
 * Reading the audit log: `GET /api/access-control/audit` and GraphQL `auditEvents` answer the
 * same events (same JSON) under the same rules. Who: 401 without credentials, 403 without
 * audit:read (an org Admin, a Viewer, an Admin API key), allowed once granted
 * `fixed:audit:reader`; a Service Admin sees every organization and the global events, anyone
 * else only the organization it acts in (another `orgId` is 403, another organization's events
 * never show). Filters (action, actionPrefix, resource, actor, orgId, from/to) agree with the
 * table; REST page paging and GraphQL cursor paging walk the same list; bad values are 400
 * (after the permission check); the oss edition answers 404. audit:read reaches databases seeded
 * before it through a migration, and a hard reset restores it.
 */
import { readFileSync } from 'node:fs';
import BetterSqlite3 from 'better-sqlite3';
import { type GraphQLInputObjectType, isNonNullType } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import type { Prisma } from '../../src/generated/prisma/client.js';
import { schema } from '../../src/http/schema.js';
import { BASIC_ROLES, fixedRoleUid } from '../../src/kernel/builtin-roles.js';
import { auditFilterInput } from '../../src/modules/audit/inputs.js';
import { auditCursor } from '../../src/modules/audit/service.js';
import type { Credentials, TestApp } from '../support/app.js';
import { createTestApp } from '../support/app.js';
import { onPostgres } from '../support/postgres.js';
import { expectOutcome, gql, type Outcome, rest } from '../support/requests.js';
import { createKey, type Fixtures, seedFixtures } from '../support/subjects.js';
import { createAuditApp, restFrom } from './audit-scene.js';

let app: TestApp;
let fx: Fixtures;

const PATH = '/api/access-control/audit';
const QUERY = `query ($filter: AuditEventFilter, $first: Int, $after: String, $last: Int, $before: String) {
  auditEvents(filter: $filter, first: $first, after: $after, last: $last, before: $before) {
    totalCount
    pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
    edges { cursor node {
      id created orgId action actor { kind id login authMethod } clientAddress requestId resource { kind id } before after
    } }
  }
}`;

type EventJson = { id: number; orgId: number; action: string; created: string; actor: { kind: string; id: number; login: string } };
type Connection = {
  totalCount: number;
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
  edges: { cursor: string; node: EventJson }[];
};

/** REST listing with `params`. */
function restList(params: Record<string, string | number> = {}, auth?: Credentials, orgId?: number): Promise<Outcome> {
  const query = new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)])).toString();
  return rest(app, 'GET', `${PATH}${query ? `?${query}` : ''}`, { ...(auth && { auth }), ...(orgId !== undefined && { orgId }) });
}

/** GraphQL listing. */
function gqlList(variables: Record<string, unknown> = {}, auth?: Credentials, orgId?: number) {
  return gql(app, QUERY, variables, { ...(auth && { auth }), ...(orgId !== undefined && { orgId }) });
}

/** Every event through REST pages of `perpage`. */
async function allRest(filter: Record<string, string | number> = {}, auth?: Credentials, perpage = 1000): Promise<EventJson[]> {
  const out: EventJson[] = [];
  for (let page = 1; ; page++) {
    const res = await restList({ ...filter, perpage, page }, auth);
    expectOutcome(res, 200);
    const body = res.body as { totalCount: number; events: EventJson[]; page: number; perPage: number };
    expect({ page: body.page, perPage: body.perPage }).toEqual({ page, perPage: perpage });
    if (body.events.length === 0) return out;
    out.push(...body.events);
    expect(body.totalCount).toBeGreaterThanOrEqual(out.length);
  }
}

/** Every event through GraphQL pages of `first`. */
async function allGraphql(filter: Record<string, unknown> = {}, auth?: Credentials, first = 1000): Promise<EventJson[]> {
  const out: EventJson[] = [];
  let after: string | null = null;
  for (;;) {
    const res = await gqlList({ filter, first, after }, auth);
    expectOutcome(res, 200);
    const connection = (res.data as { auditEvents: Connection }).auditEvents;
    out.push(...connection.edges.map((e) => e.node));
    expect(connection.pageInfo.hasPreviousPage).toBe(after !== null);
    if (!connection.pageInfo.hasNextPage) return out;
    after = connection.pageInfo.endCursor;
  }
}

/** Ids of the table's events matching `where`, newest first. */
async function tableIds(where: Prisma.AuditEventWhereInput = {}): Promise<number[]> {
  const rows = await app.database.prisma.auditEvent.findMany({ where, orderBy: { id: 'desc' }, select: { id: true } });
  return rows.map((r) => r.id);
}

const ids = (events: { id: number }[]) => events.map((e) => e.id);

beforeAll(async () => {
  app = await createAuditApp();
  fx = await seedFixtures(app);
  // Changes in org 1, org 2 and globally, by several actors.
  const perms = [{ action: 'teams:read', scope: 'teams:*' }];
  expectOutcome(
    await restFrom(app, 'POST', '/api/access-control/roles', { json: { uid: 'read-1', name: 'custom:read-1', permissions: perms } }),
    200,
  );
  expectOutcome(
    await restFrom(app, 'POST', '/api/access-control/roles', {
      orgId: fx.org2.id,
      json: { uid: 'read-2', name: 'custom:read-2', permissions: perms },
    }),
    200,
  );
  expectOutcome(
    await restFrom(app, 'POST', '/api/access-control/roles', {
      json: { uid: 'read-g', name: 'custom:read-g', global: true, permissions: perms },
    }),
    200,
  );
  await createKey(app, { name: 'org2-key', role: 'Viewer' }, { auth: fx.org2.admin.auth });
  await createKey(app, { name: 'org1-key', role: 'Viewer' }, { auth: fx.orgAdmin.auth });
  expectOutcome(await restFrom(app, 'POST', '/api/access-control/roles/hard-reset', { json: { BasicRoles: true } }), 200);
});

afterAll(async () => {
  await app?.close();
});

describe('who may read', () => {
  it('401 without credentials on both doors', async () => {
    expectOutcome(await rest(app, 'GET', PATH, { auth: null }), 401, 'UNAUTHENTICATED');
    expectOutcome(await gql(app, QUERY, {}, { auth: null }), 401, 'UNAUTHENTICATED');
  });

  it('403 naming audit:read for an org Admin, a Viewer and an Admin API key, before any filter is read', async () => {
    const key = await createKey(app, { name: 'audit-reader-key', role: 'Admin' });
    for (const auth of [fx.orgAdmin.auth, fx.viewer.auth, { token: key.key }] as Credentials[]) {
      expect(expectOutcome(await restList({}, auth), 403, 'ACCESS_DENIED')).toContain('audit:read');
      expect(expectOutcome(await gqlList({}, auth), 403, 'ACCESS_DENIED')).toContain('audit:read');
      // A bad filter from someone who may not read at all is still a 403, not a 400.
      expectOutcome(await restList({ perpage: 'abc' }, auth), 403, 'ACCESS_DENIED');
      expectOutcome(await gqlList({ first: 0 }, auth), 403, 'ACCESS_DENIED');
    }
  });

  it('a Service Admin sees every organization and the global events', async () => {
    const events = await allRest();
    expect(ids(events)).toEqual(await tableIds());
    const orgs = new Set(events.map((e) => e.orgId));
    expect(orgs).toEqual(new Set([0, 1, fx.org2.id]));
    expect(ids(await allRest({ orgId: fx.org2.id }))).toEqual(await tableIds({ orgId: fx.org2.id }));
    expect(ids(await allRest({ orgId: 0 }))).toEqual(await tableIds({ orgId: 0 }));
  });

  it("an org Admin granted fixed:audit:reader sees its organization's events only", async () => {
    const uid = fixedRoleUid('fixed:audit:reader');
    expectOutcome(await rest(app, 'POST', `/api/access-control/users/${fx.orgAdmin.id}/roles`, { json: { roleUid: uid } }), 200);
    const auth = fx.orgAdmin.auth;
    const seen = await allRest({}, auth, 7);
    expect(ids(seen)).toEqual(await tableIds({ orgId: 1 }));
    expect(seen.every((e) => e.orgId === 1)).toBe(true);
    expect(ids(await allGraphql({}, auth, 7))).toEqual(ids(seen));
    // Its own organization by name is fine; another one, or the global events, are a Service Admin's.
    expect(ids(await allRest({ orgId: 1 }, auth))).toEqual(ids(seen));
    for (const orgId of [fx.org2.id, 0]) {
      expect(expectOutcome(await restList({ orgId }, auth), 403, 'ACCESS_DENIED')).toContain('Service Admin');
      expectOutcome(await gqlList({ filter: { orgId } }, auth), 403, 'ACCESS_DENIED');
    }
  });

  it("org 2's reader sees org 2 only: the wall holds both ways", async () => {
    const uid = fixedRoleUid('fixed:audit:reader');
    expectOutcome(
      await rest(app, 'POST', `/api/access-control/users/${fx.org2.admin.id}/roles`, { json: { roleUid: uid }, orgId: fx.org2.id }),
      200,
    );
    const seen = await allRest({}, fx.org2.admin.auth);
    expect(ids(seen)).toEqual(await tableIds({ orgId: fx.org2.id }));
    expect(seen.some((e) => e.action === 'api_key.create' && e.actor.login === 'org2-admin')).toBe(true);
    const org1 = await allRest({}, fx.orgAdmin.auth);
    expect(org1.some((e) => e.orgId !== 1)).toBe(false);
    expect(ids(org1).filter((id) => ids(seen).includes(id))).toEqual([]);
    // Filtering on another organization's object finds nothing, though the log holds it.
    const read1 = { resourceKind: 'role', resourceId: 'read-1' };
    expect(ids(await allRest(read1))).toEqual(await tableIds(read1));
    expect((await tableIds(read1)).length).toBeGreaterThan(0);
    expect(ids(await allRest(read1, fx.org2.admin.auth))).toEqual([]);
  });
});

describe('filters: REST and GraphQL agree with the table', () => {
  // The last column says whether the scene logged matching events: where it did, an empty answer is a failure, not a match.
  const cases: [string, Record<string, string | number>, Prisma.AuditEventWhereInput, 'some' | 'none'][] = [
    ['action', { action: 'role.create' }, { action: 'role.create' }, 'some'],
    ['actionPrefix', { actionPrefix: 'role.' }, { action: { startsWith: 'role.' } }, 'some'],
    ['actionPrefix is case-sensitive', { actionPrefix: 'ROLE.' }, { id: -1 }, 'none'],
    ['resource', { resourceKind: 'role', resourceId: 'read-g' }, { resourceKind: 'role', resourceId: 'read-g' }, 'some'],
    ['resource kind', { resourceKind: 'api_key' }, { resourceKind: 'api_key' }, 'some'],
    ['actor kind and id', { actorKind: 'user', actorId: 1 }, { actorKind: 'user', actorId: 1 }, 'some'],
    ['actor login', { actorLogin: 'org2-admin' }, { actorLogin: 'org2-admin' }, 'some'],
    ['organization', { orgId: 1, actionPrefix: 'api_key.' }, { orgId: 1, action: { startsWith: 'api_key.' } }, 'some'],
  ];

  it.each(cases)('%s', async (_name, filter, where, found) => {
    const expectedIds = await tableIds(where);
    expect(expectedIds.length > 0 ? 'some' : 'none').toBe(found);
    const viaRest = await allRest(filter, undefined, 5);
    expect(ids(viaRest)).toEqual(expectedIds);
    const viaGraphql = await allGraphql(filter, undefined, 5);
    expect(ids(viaGraphql)).toEqual(expectedIds);
    // What came back carries the action asked for (every filter without one passes this trivially).
    const prefix = String(filter.actionPrefix ?? filter.action ?? '');
    expect(viaRest.filter((e) => !e.action.startsWith(prefix))).toEqual([]);
  });

  it('from and to (inclusive), as ISO 8601 or epoch milliseconds', async () => {
    const all = await tableIds();
    const rows = await app.database.prisma.auditEvent.findMany({ orderBy: { id: 'asc' } });
    const middle = rows[Math.floor(rows.length / 2)];
    if (!middle) throw new Error('no events');
    const at = middle.created;
    const since = await tableIds({ created: { gte: at } });
    const until = await tableIds({ created: { lte: at } });
    expect(since.length).toBeGreaterThan(0);
    expect(since.length + until.length).toBeGreaterThan(all.length);
    expect(ids(await allRest({ from: at.toISOString() }))).toEqual(since);
    expect(ids(await allRest({ from: String(at.getTime()) }))).toEqual(since);
    expect(ids(await allRest({ to: at.toISOString() }))).toEqual(until);
    expect(ids(await allGraphql({ from: at.toISOString() }))).toEqual(since);
    expect(ids(await allGraphql({ to: at.toISOString() }))).toEqual(until);
    expect(ids(await allRest({ from: at.toISOString(), to: at.toISOString() }))).toEqual(await tableIds({ created: at }));
  });
});

describe('paging', () => {
  it('REST pages and GraphQL cursors walk the same list, newest first, with the same JSON', async () => {
    const table = await tableIds();
    expect(table.length).toBeGreaterThan(20);
    const byPages = await allRest({}, undefined, 7);
    const byCursor = await allGraphql({}, undefined, 7);
    expect(ids(byPages)).toEqual(table);
    expect(byCursor).toEqual(byPages);
    const first = await restList({ perpage: 7, page: 2 });
    expect(first.body).toMatchObject({ totalCount: table.length, page: 2, perPage: 7 });
    const connection = (await gqlList({ first: 7 })).data as { auditEvents: Connection };
    expect(connection.auditEvents.totalCount).toBe(table.length);
    expect(connection.auditEvents.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
    expect(connection.auditEvents.edges[0]?.cursor).toBe(connection.auditEvents.pageInfo.startCursor);
  });

  it('defaults: 100 per page, page 1; a page past the end is empty', async () => {
    const res = await restList();
    expect(res.body).toMatchObject({ page: 1, perPage: 100 });
    expect((res.body as { events: unknown[] }).events.length).toBe(Math.min(100, (await tableIds()).length));
    const past = await restList({ perpage: 1000, page: 50 });
    expect(past.body).toMatchObject({ events: [], page: 50 });
    // The paging rule of every list (shared/paging.ts): missing, not a number or below 1 is the default.
    for (const params of <Record<string, string | number>[]>[{ perpage: 0 }, { perpage: 'abc' }, { page: 0 }, { perpage: -5, page: 'x' }]) {
      expect((await restList(params)).body).toMatchObject({ page: 1, perPage: 100 });
    }
    const lenient = (await gqlList({ first: 0 })).data as { auditEvents: Connection };
    expect(lenient.auditEvents.edges).toHaveLength(Math.min(100, (await tableIds()).length));
  });

  it('a cursor page is not shifted by events written after the first page', async () => {
    const page1 = (await gqlList({ first: 3 })).data as { auditEvents: Connection };
    const before = await tableIds();
    expectOutcome(await rest(app, 'POST', '/api/access-control/roles', { json: { name: 'custom:paging-probe' } }), 200);
    const page2 = (await gqlList({ first: 3, after: page1.auditEvents.pageInfo.endCursor })).data as { auditEvents: Connection };
    expect([...ids(page1.auditEvents.edges.map((e) => e.node)), ...ids(page2.auditEvents.edges.map((e) => e.node))]).toEqual(
      before.slice(0, 6),
    );
  });

  it('last/before pages walk the same list backwards, each page newest first', async () => {
    const table = await tableIds();
    const pages: Connection[] = [];
    let before: string | null = null;
    do {
      const page: Connection = ((await gqlList({ last: 7, before })).data as { auditEvents: Connection }).auditEvents;
      expect(page.pageInfo.hasNextPage).toBe(before !== null);
      pages.unshift(page);
      before = page.pageInfo.hasPreviousPage ? page.pageInfo.startCursor : null;
    } while (before);
    expect(pages.flatMap((p) => ids(p.edges.map((e) => e.node)))).toEqual(table);
    expect(pages.at(-1)?.edges).toHaveLength(Math.min(7, table.length));
    expectOutcome(await gqlList({ first: 3, before: pages[0]?.pageInfo.endCursor }), 400, 'VALIDATION_FAILED');
    expectOutcome(await gqlList({ last: 3, before: 'not-a-cursor' }), 400, 'VALIDATION_FAILED');
  });

  it('400 for values out of bounds or malformed, on both doors', async () => {
    for (const params of <Record<string, string | number>[]>[
      { perpage: 1001 },
      { page: '2147483648' },
      { actorKind: 'robot' },
      { actorId: -1 },
      { orgId: 'x' },
      { from: 'yesterday' },
      { from: '2030-01-02T00:00:00Z', to: '2030-01-01T00:00:00Z' },
    ]) {
      expectOutcome(await restList(params), 400, 'VALIDATION_FAILED');
    }
    for (const variables of [
      { first: 1001 },
      { after: 'not-a-cursor' },
      { after: Buffer.from('audit:x').toString('base64url') },
      { filter: { actorKind: 'robot' } },
      { filter: { from: '2030-01-02T00:00:00Z', to: '2030-01-01T00:00:00Z' } },
    ]) {
      expectOutcome(await gqlList(variables), 400, 'VALIDATION_FAILED');
    }
    expectOutcome(await gqlList({ first: 1000, after: auditCursor(1) }), 200);
  });
});

describe('the GraphQL filter input', () => {
  it('has the fields of the zod filter, all optional', () => {
    const type = schema.getType('AuditEventFilter') as GraphQLInputObjectType;
    const fields = type.getFields();
    const zodFields = auditFilterInput.shape as Record<string, z.ZodType>;
    expect(Object.keys(fields).sort()).toEqual(Object.keys(zodFields).sort());
    for (const field of Object.values(fields)) expect(isNonNullType(field.type)).toBe(false);
  });
});

describe('audit:read of the Service Admin', () => {
  it('a hard reset restores it after an operator removed it', async () => {
    const def = BASIC_ROLES.find((r) => r.uid === 'basic_service_admin');
    const stored = await app.database.prisma.role.findUniqueOrThrow({ where: { uid: 'basic_service_admin' } });
    const without = (def?.permissions ?? []).filter((x) => x.action !== 'audit:read');
    const edit = await rest(app, 'PUT', '/api/access-control/roles/basic_service_admin', {
      json: { name: 'basic:service_admin', version: stored.version + 1, permissions: without },
    });
    expectOutcome(edit, 200);
    expectOutcome(await restList(), 403, 'ACCESS_DENIED');
    expectOutcome(await rest(app, 'POST', '/api/access-control/roles/hard-reset', { json: { BasicRoles: true } }), 200);
    expectOutcome(await restList(), 200);
  });

  // SQLite-specific: replays a SQLite data migration; PostgreSQL databases start from the current schema and seed.
  it.skipIf(onPostgres)('a database seeded before gets it once through the migration', async () => {
    const sql = readFileSync(new URL('../../prisma/migrations/20261123140000_audit_read/migration.sql', import.meta.url), 'utf8');
    const raw = new BetterSqlite3(app.database.path, { timeout: 5000 });
    try {
      const role = raw.prepare<[], { id: number }>("SELECT id FROM Role WHERE uid = 'basic_service_admin'").get();
      const roleId = role?.id ?? 0;
      const held = () =>
        raw.prepare<[number], { n: number }>("SELECT count(*) AS n FROM Permission WHERE roleId = ? AND action = 'audit:read'").get(roleId)
          ?.n;
      raw.prepare("DELETE FROM Permission WHERE roleId = ? AND action = 'audit:read'").run(roleId);
      expect(held()).toBe(0);
      raw.exec(sql);
      expect(held()).toBe(1);
      raw.exec(sql);
      expect(held()).toBe(1);
    } finally {
      raw.close();
    }
    app.services.access.invalidate();
    expectOutcome(await restList(), 200);
  });
});

describe('oss edition', () => {
  it('answers 404 on both doors, while changes are still recorded', async () => {
    const oss = await createTestApp({ env: { EDITION: 'oss' } });
    try {
      expectOutcome(await rest(oss, 'GET', PATH), 404, 'ACCESS_CONTROL_UNAVAILABLE');
      expectOutcome(await gql(oss, QUERY, {}), 404, 'ACCESS_CONTROL_UNAVAILABLE');
      await createKey(oss, { name: 'oss-key', role: 'Viewer' });
      expect(await oss.database.prisma.auditEvent.count({ where: { action: 'api_key.create' } })).toBe(1);
    } finally {
      await oss.close();
    }
  });
});
