/**
 * The access review on both doors: who has an action (on a scope) and through what, everything
 * one subject can do and why, and the streamed export. The oracle is the kernel's evaluator on
 * every member's and API key's own index (AccessService.permissionsOf) and the single check's
 * reason (kernel/grants.ts): the review must name exactly the subjects the evaluator allows, each
 * with exactly the paths the check names. Organization walls and the permission are tried too.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { permission } from '../../src/kernel/evaluator.js';
import { grantsOf } from '../../src/kernel/grants.js';
import { ORG_ROLES, type SignedInPrincipal } from '../../src/kernel/principal.js';
import { expectOutcome, gql, rest } from '../support/requests.js';
import { app, fx, useSeededApp } from '../support/scene.js';
import {
  type Actor,
  addTeamMember,
  assignTeamRole,
  assignUserRole,
  createKey,
  createRole,
  createTeam,
  createUser,
  p,
  unique,
} from '../support/subjects.js';

useSeededApp();

const WHO = '/api/access-control/review/who-has';
const EXPORT = `${WHO}/export`;
type Path = { role: { uid: string; name: string }; source: string; permission: { action: string; scope: string } };
type Row = { subject: { kind: string; id: number; login: string; orgRole: string }; paths: Path[] };
type Page = { revision: number; rows: Row[]; endCursor: string | null; hasNextPage: boolean };

let reviewer: Actor;
/** Questions asked of the world: every one is answered and compared with the oracle. */
const QUESTIONS: { action: string; scope?: string }[] = [
  { action: 'notes:write', scope: 'notes:id:7' },
  { action: 'notes:write' },
  { action: 'notes:read', scope: 'notes:id:3' },
  { action: 'teams:read', scope: 'teams:id:1' },
  { action: 'orgs:write', scope: 'orgs:id:1' },
  { action: 'users:write', scope: 'global.users:id:2' },
  { action: 'apikey:create' },
  { action: 'nothing:held' },
];

/** A deterministic random source (mulberry32), so a failure is reproducible. */
function random(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

beforeAll(async () => {
  reviewer = await createUser(app, unique('reviewer'), { orgRole: 'Viewer' });
  await assignUserRole(app, reviewer.id, 'fixed:access.review:reader');
  const roles = [
    await createRole(app, unique('notes-7'), [p('notes:write', 'notes:id:7')]),
    await createRole(app, unique('notes-all'), [p('notes:write', 'notes:*'), p('notes:read', 'notes:*')]),
    await createRole(app, unique('notes-read-3'), [p('notes:read', 'notes:id:3'), p('notes:read', 'notes:id:*')]),
    await createRole(app, unique('global-notes'), [p('notes:write', 'notes:id:*')], { orgId: 0 }),
  ];
  const teams = [await createTeam(app, unique('review-a')), await createTeam(app, unique('review-b'))];
  await assignTeamRole(app, (teams[0] as { id: number }).id, (roles[1] as { uid: string }).uid);
  await assignTeamRole(app, (teams[1] as { id: number }).id, (roles[2] as { uid: string }).uid);
  const next = random(31);
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)] as T;
  for (let i = 0; i < 24; i++) {
    const user = await createUser(app, unique('reviewed'), { orgRole: pick(ORG_ROLES) });
    if (next() < 0.4) await assignUserRole(app, user.id, pick(roles).uid, next() < 0.2 ? 0 : 1);
    for (const team of teams) if (next() < 0.3) await addTeamMember(app, team.id, user.id);
    if (next() < 0.15) await app.database.prisma.user.update({ where: { id: user.id }, data: { isDisabled: true } });
  }
  // Another organization's member holding everything: never in org 1's review.
  const outsider = await createUser(app, unique('outsider'), { orgId: fx.org2.id, orgRole: 'Admin' });
  await assignUserRole(app, outsider.id, (roles[1] as { uid: string }).uid, fx.org2.id);
  await createKey(app, { name: unique('review-key'), role: 'Admin' });
  const expired = await createKey(app, { name: unique('expired-key'), role: 'Admin' });
  await app.database.prisma.apiKey.update({ where: { id: expired.id }, data: { expires: new Date(Date.now() - 60_000) } });
  await createKey(app, { name: unique('viewer-key'), role: 'Viewer' });
  app.services.access.invalidate();
});

/** Every subject of org 1 that can act, as the principal the evaluator is asked about. */
async function subjectsOfOrg1(): Promise<{ key: string; principal: SignedInPrincipal }[]> {
  const db = app.database.prisma;
  const members = await db.orgUser.findMany({ where: { orgId: 1, user: { isDisabled: false } }, include: { user: true } });
  const keys = await db.apiKey.findMany({
    where: { orgId: 1, serviceAccountId: null, OR: [{ expires: null }, { expires: { gt: new Date() } }] },
  });
  return [
    ...members.map((m) => ({
      key: `${m.user.isServiceAccount ? 'serviceAccount' : 'user'}:${m.userId}`,
      principal: {
        kind: m.user.isServiceAccount ? ('serviceAccount' as const) : ('user' as const),
        id: m.userId,
        login: m.user.login,
        orgId: 1,
        orgRole: m.role as 'Viewer',
        isServiceAdmin: m.user.isServiceAdmin,
        authMethod: 'none' as const,
      },
    })),
    ...keys.map((k) => ({
      key: `apiKey:${k.id}`,
      principal: {
        kind: 'apiKey' as const,
        id: k.id,
        name: k.name,
        orgId: 1,
        orgRole: k.role as 'Viewer',
        isServiceAdmin: false as const,
        authMethod: 'api_key' as const,
      },
    })),
  ];
}

const pathKey = (p: Path) => `${p.role.uid}|${p.source}|${p.permission.action}|${p.permission.scope}`;

/** The oracle's answer: subject key -> sorted path keys, for every subject the evaluator allows. */
async function oracle(action: string, scope?: string): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  for (const { key, principal } of await subjectsOfOrg1()) {
    const index = await app.services.access.permissionsOf(principal);
    if (!(scope ? permission(action, scope) : permission(action)).evaluate(index)) continue;
    const grants = await grantsOf(app.services.access, principal, action, scope ? [scope] : []);
    out.set(key, grants.map((g) => pathKey({ role: g.role, source: g.source, permission: g.permission })).sort());
  }
  return out;
}

const asMap = (rows: Row[]) => new Map(rows.map((r) => [`${r.subject.kind}:${r.subject.id}`, r.paths.map(pathKey).sort()]));

/** Every page of a question over REST, `first` at a time. */
async function allPages(question: { action: string; scope?: string }, first: number): Promise<{ rows: Row[]; revisions: number[] }> {
  const rows: Row[] = [];
  const revisions: number[] = [];
  let after: string | null = null;
  for (;;) {
    const query = new URLSearchParams({ ...question, first: String(first), ...(after && { after }) });
    const res = await rest(app, 'GET', `${WHO}?${query}`, { auth: reviewer.auth });
    expectOutcome(res, 200);
    const page = res.body as Page;
    rows.push(...page.rows);
    revisions.push(page.revision);
    if (!page.hasNextPage) return { rows, revisions };
    after = page.endCursor;
  }
}

describe('who has an action, and through what', () => {
  it('names exactly the subjects the evaluator allows, each with the paths the check names, on REST and GraphQL', async () => {
    for (const question of QUESTIONS) {
      const expected = await oracle(question.action, question.scope);
      const { rows } = await allPages(question, 1000);
      expect(asMap(rows), JSON.stringify(question)).toEqual(expected);
      const res = await gql(
        app,
        `query($a: String!, $s: String) { accessReview(action: $a, scope: $s, first: 1000) { revision hasNextPage
          rows { subject { kind id login orgRole } paths { roleUid roleName source permission { action scope } } } } }`,
        { a: question.action, s: question.scope ?? null },
        { auth: reviewer.auth },
      );
      expectOutcome(res, 200);
      const page = res.data?.accessReview as {
        rows: { subject: Row['subject']; paths: (Omit<Path, 'role'> & { roleUid: string; roleName: string })[] }[];
      };
      const viaGraphql = page.rows.map((r) => ({
        subject: r.subject,
        paths: r.paths.map((x) => ({ role: { uid: x.roleUid, name: x.roleName }, source: x.source, permission: x.permission })),
      }));
      expect(asMap(viaGraphql)).toEqual(expected);
    }
    const notes = asMap((await allPages({ action: 'notes:write', scope: 'notes:id:7' }, 1000)).rows);
    const sources = [...notes.values()].flat().map((k) => k.split('|')[1]);
    expect(sources.some((s) => s === 'direct')).toBe(true);
    expect(sources.some((s) => s?.startsWith('team:'))).toBe(true);
    const teams = asMap((await allPages({ action: 'teams:read', scope: 'teams:id:1' }, 1000)).rows);
    expect([...teams.keys()].some((k) => k.startsWith('apiKey:'))).toBe(true);
  });

  it('pages in a fixed order that together make the whole answer, each page stating the revision of the last change', async () => {
    const write = await app.request('/api/access-control/roles', {
      method: 'POST',
      json: { name: unique('review-mark'), permissions: [] },
    });
    const revision = Number(write.headers.get('x-access-revision'));
    const whole = await allPages({ action: 'teams:read', scope: 'teams:id:1' }, 1000);
    const paged = await allPages({ action: 'teams:read', scope: 'teams:id:1' }, 3);
    expect(paged.rows).toEqual(whole.rows);
    expect(new Set([...whole.revisions, ...paged.revisions])).toEqual(new Set([revision]));
    expect(paged.revisions.length).toBeGreaterThan(2);
  });

  it('keeps the organization wall: a reviewer of org 2 sees org 2 only', async () => {
    const other = await createUser(app, unique('reviewer2'), { orgId: fx.org2.id, orgRole: 'Viewer' });
    await assignUserRole(app, other.id, 'fixed:access.review:reader', fx.org2.id);
    const res = await rest(app, 'GET', `${WHO}?action=notes:write`, { auth: other.auth, orgId: fx.org2.id });
    expectOutcome(res, 200);
    const ids = (res.body as Page).rows.map((r) => r.subject.id);
    const org2Members = (await app.database.prisma.orgUser.findMany({ where: { orgId: fx.org2.id } })).map((m) => m.userId);
    expect(ids.length).toBeGreaterThan(0);
    for (const id of ids) expect(org2Members).toContain(id);
    const inOrg1 = (await allPages({ action: 'notes:write' }, 1000)).rows.map((r) => r.subject.id);
    expect(inOrg1.some((id) => ids.includes(id) && id !== fx.admin.id)).toBe(false);
  });

  it('refuses a caller without access.review:read (403) and bad input (400), on both doors', async () => {
    expectOutcome(await rest(app, 'GET', `${WHO}?action=teams:read`, { auth: fx.orgAdmin.auth }), 403, 'ACCESS_DENIED');
    expectOutcome(await rest(app, 'GET', `${EXPORT}?action=teams:read`, { auth: fx.viewer.auth }), 403, 'ACCESS_DENIED');
    expectOutcome(
      await rest(app, 'GET', `/api/access-control/review/users/${fx.viewer.id}`, { auth: fx.editor.auth }),
      403,
      'ACCESS_DENIED',
    );
    expectOutcome(
      await gql(app, '{ accessReview(action: "teams:read") { revision } }', {}, { auth: fx.viewer.auth }),
      403,
      'ACCESS_DENIED',
    );
    expectOutcome(await rest(app, 'GET', WHO, { auth: reviewer.auth }), 400, 'VALIDATION_FAILED');
    expectOutcome(await rest(app, 'GET', `${WHO}?action=teams:read&after=x1`, { auth: reviewer.auth }), 400, 'VALIDATION_FAILED');
    expectOutcome(await rest(app, 'GET', `${WHO}?action=teams:read&first=1001`, { auth: reviewer.auth }), 400, 'VALIDATION_FAILED');
    expectOutcome(await rest(app, 'GET', `${EXPORT}?action=teams:read&format=xml`, { auth: reviewer.auth }), 400, 'VALIDATION_FAILED');
  });
});

describe('the export', () => {
  it('streams NDJSON and CSV that hold exactly the paged answer, at the revision it states', async () => {
    const question = { action: 'notes:write' };
    const { rows, revisions } = await allPages(question, 1000);
    const ndjson = await app.request(`${EXPORT}?action=notes:write`, { auth: reviewer.auth });
    expect(ndjson.status).toBe(200);
    expect(ndjson.headers.get('content-type')).toContain('application/x-ndjson');
    const lines = (await ndjson.text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines[0]).toEqual({ header: { revision: revisions[0], action: 'notes:write', scope: null } });
    expect(lines.at(-1)).toEqual({ trailer: { subjects: rows.length, revision: revisions[0], revisionAtEnd: revisions[0] } });
    expect(lines.slice(1, -1)).toEqual(rows);
    expect(Number(ndjson.headers.get('x-access-revision'))).toBe(revisions[0]);

    const csv = await app.request(`${EXPORT}?action=notes:write&format=csv`, { auth: reviewer.auth });
    expect(csv.headers.get('content-type')).toContain('text/csv');
    const csvLines = (await csv.text()).trim().split('\r\n');
    expect(csvLines[0]).toBe('subject_kind,subject_id,login,org_role,is_service_admin,source,role_uid,role_name,action,scope');
    const expected = rows.flatMap((r) =>
      r.paths.map((x) =>
        [
          r.subject.kind,
          r.subject.id,
          r.subject.login,
          r.subject.orgRole,
          String((r.subject as { isServiceAdmin?: boolean }).isServiceAdmin),
          x.source,
          x.role.uid,
          x.role.name,
          x.permission.action,
          x.permission.scope,
        ].join(','),
      ),
    );
    expect(csvLines.slice(1)).toEqual(expected);
  });
});

describe('everything a subject can do, and why', () => {
  it('lists the grants the permission sources listing lists, paged, for users, service accounts and API keys', async () => {
    for (const { key, principal } of (await subjectsOfOrg1()).slice(0, 12)) {
      const path = principal.kind === 'apiKey' ? `api-keys/${principal.id}` : `users/${principal.id}`;
      const res = await rest(app, 'GET', `/api/access-control/review/${path}?first=1000`, { auth: reviewer.auth });
      expectOutcome(res, 200);
      const body = res.body as { grants: Path[]; subject: { kind: string; id: number }; hasNextPage: boolean };
      expect(`${body.subject.kind}:${body.subject.id}`).toBe(key);
      const expected = (await grantsOf(app.services.access, principal, null, [])).map((g) =>
        pathKey({ role: g.role, source: g.source, permission: g.permission }),
      );
      expect(body.grants.map(pathKey).sort()).toEqual(expected.sort());
      const index = await app.services.access.permissionsOf(principal);
      expect(new Set(body.grants.map((g) => `${g.permission.action}|${g.permission.scope}`))).toEqual(
        new Set(index.pairs().map((x) => `${x.action}|${x.scope}`)),
      );
    }
    const whole = (await rest(app, 'GET', `/api/access-control/review/users/${fx.admin.id}`, { auth: reviewer.auth })).body as {
      grants: Path[];
    };
    const paged: Path[] = [];
    let after = '';
    for (;;) {
      const page = (await rest(app, 'GET', `/api/access-control/review/users/${fx.admin.id}?first=7${after}`, { auth: reviewer.auth }))
        .body as { grants: Path[]; endCursor: string | null };
      paged.push(...page.grants);
      if (!page.endCursor) break;
      after = `&after=${page.endCursor}`;
    }
    expect(paged).toEqual(whole.grants);
    const viaGraphql = await gql(
      app,
      `{ subjectAccess(userId: ${fx.admin.id}) { revision grants { source role { uid } permission { action scope } } } }`,
      {},
      { auth: reviewer.auth },
    );
    expect((viaGraphql.data as { subjectAccess: { grants: unknown[] } }).subjectAccess.grants.length).toBe(whole.grants.length);
  });

  it('keeps the organization wall: a subject of another organization is not found', async () => {
    expectOutcome(
      await rest(app, 'GET', `/api/access-control/review/users/${fx.org2.admin.id}`, { auth: reviewer.auth }),
      404,
      'USER_NOT_FOUND',
    );
    expectOutcome(
      await gql(app, `{ subjectAccess(userId: ${fx.org2.admin.id}) { revision } }`, {}, { auth: reviewer.auth }),
      404,
      'USER_NOT_FOUND',
    );
    expectOutcome(await rest(app, 'GET', '/api/access-control/review/api-keys/999999', { auth: reviewer.auth }), 404, 'API_KEY_NOT_FOUND');
  });
});
