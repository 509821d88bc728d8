/**
 * Who has an action (on a scope), and through what, on both doors: exactly the subjects the
 * kernel's evaluator allows, each with exactly the paths the single check names (the oracle of
 * review-scene.ts); pages, the revision, the organization wall and the permission.
 */
import { describe, expect, it } from 'vitest';
import { expectOutcome, gql, rest } from '../support/requests.js';
import { app, fx } from '../support/scene.js';
import { assignUserRole, createUser, unique } from '../support/subjects.js';
import {
  allPages,
  asMap,
  EXPORT,
  oracle,
  type Page,
  type Path,
  QUESTIONS,
  type Row,
  reviewer,
  useReviewWorld,
  WHO,
} from './review-scene.js';

useReviewWorld();

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
