/**
 * The world the access review's request-level tests share: a reviewer holding
 * fixed:access.review:reader, random members of organization 1 reached by every path (direct,
 * global, team, basic role, Service Admin; some disabled), an outsider of organization 2 and API
 * keys (one expired); and the oracle, the kernel's evaluator on every member's and API key's own
 * index (AccessService.permissionsOf) with the single check's reason (kernel/grants.ts).
 */
import { beforeAll } from 'vitest';
import { permission } from '../../src/kernel/evaluator.js';
import { grantsOf } from '../../src/kernel/grants.js';
import { ORG_ROLES, type SignedInPrincipal } from '../../src/kernel/principal.js';
import { expectOutcome, rest } from '../support/requests.js';
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

export const WHO = '/api/access-control/review/who-has';
export const EXPORT = `${WHO}/export`;
export type Path = { role: { uid: string; name: string }; source: string; permission: { action: string; scope: string } };
export type Row = { subject: { kind: string; id: number; login: string; orgRole: string }; paths: Path[] };
export type Page = { revision: number; rows: Row[]; endCursor: string | null; hasNextPage: boolean };

/** The reviewer: a Viewer of organization 1 holding fixed:access.review:reader. */
export let reviewer: Actor;
/** Questions asked of the world: every one is answered and compared with the oracle. */
export const QUESTIONS: { action: string; scope?: string }[] = [
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

/** Builds the scene's app (support/scene.ts) and its world before the file's tests; call once, at top level. */
export function useReviewWorld(): void {
  useSeededApp();
  beforeAll(buildWorld);
}

async function buildWorld(): Promise<void> {
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
}

/** Every subject of org 1 that can act, as the principal the evaluator is asked about. */
/** An API key of organization 1 as the principal it signs in as. */
export function keyPrincipal(k: { id: number; name: string; role: string }): SignedInPrincipal {
  return { kind: 'apiKey', id: k.id, name: k.name, orgId: 1, orgRole: k.role as 'Viewer', isServiceAdmin: false, authMethod: 'api_key' };
}

export async function subjectsOfOrg1(): Promise<{ key: string; principal: SignedInPrincipal }[]> {
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
    ...keys.map((k) => ({ key: `apiKey:${k.id}`, principal: keyPrincipal(k) })),
  ];
}

export const pathKey = (p: Path) => `${p.role.uid}|${p.source}|${p.permission.action}|${p.permission.scope}`;

/** The oracle's answer: subject key -> sorted path keys, for every subject the evaluator allows. */
export async function oracle(action: string, scope?: string): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  for (const { key, principal } of await subjectsOfOrg1()) {
    const index = await app.services.access.permissionsOf(principal);
    if (!(scope ? permission(action, scope) : permission(action)).evaluate(index)) continue;
    const grants = await grantsOf(app.services.access, principal, action, scope ? [scope] : [], new Date());
    out.set(key, grants.map((g) => pathKey({ role: g.role, source: g.source, permission: g.permission })).sort());
  }
  return out;
}

export const asMap = (rows: Row[]) => new Map(rows.map((r) => [`${r.subject.kind}:${r.subject.id}`, r.paths.map(pathKey).sort()]));

/** Every page of a question over REST, `first` at a time. */
export async function allPages(question: { action: string; scope?: string }, first: number): Promise<{ rows: Row[]; revisions: number[] }> {
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
