/**
 * The access review's streamed export (NDJSON and CSV hold exactly the paged answer, at the
 * revision they state) and everything one subject can do and why (the grants of its check's
 * reason, the permissions of its own index, paged), with the organization wall.
 */
import { describe, expect, it } from 'vitest';
import { grantsOf } from '../../src/kernel/grants.js';
import { expectOutcome, gql, rest } from '../support/requests.js';
import { app, fx } from '../support/scene.js';
import { allPages, EXPORT, type Path, pathKey, QUESTIONS, reviewer, subjectsOfOrg1, useReviewWorld } from './review-scene.js';

useReviewWorld();

describe('the export', () => {
  it('streams NDJSON and CSV that hold exactly the paged answer, at the revision it states', async () => {
    const question = { action: 'notes:write' };
    const { rows, revisions } = await allPages(question, 1000);
    const ndjson = await app.request(`${EXPORT}?action=notes:write&count=true`, { auth: reviewer.auth });
    expect(ndjson.status).toBe(200);
    expect(ndjson.headers.get('content-type')).toContain('application/x-ndjson');
    const lines = (await ndjson.text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines[0]).toEqual({ header: { revision: revisions[0], subjects: rows.length, action: 'notes:write', scope: null } });
    expect(lines.at(-1)).toEqual({ trailer: { subjects: rows.length, revision: revisions[0], revisionAtEnd: revisions[0] } });
    expect(lines.slice(1, -1)).toEqual(rows);
    expect(Number(ndjson.headers.get('x-access-revision'))).toBe(revisions[0]);
    expect(Number(ndjson.headers.get('x-review-subjects'))).toBe(rows.length);

    const uncounted = await app.request(`${EXPORT}?action=notes:write`, { auth: reviewer.auth });
    // Without count=true nothing is counted before the first row: no announcement.
    expect(uncounted.headers.get('x-review-subjects')).toBeNull();
    const uncountedLines = (await uncounted.text()).trim().split('\n');
    expect(JSON.parse(uncountedLines[0] as string)).toEqual({ header: { revision: revisions[0], action: 'notes:write', scope: null } });
    expect(uncountedLines.slice(1)).toEqual(lines.slice(1).map((l) => JSON.stringify(l)));
    expectOutcome(await rest(app, 'GET', `${EXPORT}?action=notes:write&count=yes`, { auth: reviewer.auth }), 400, 'VALIDATION_FAILED');

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

  it('announces how many subjects it holds (x-review-subjects, count=true), for every path a subject can hold the action by', async () => {
    for (const question of QUESTIONS) {
      const { rows } = await allPages(question, 1000);
      const query = new URLSearchParams({
        action: question.action,
        format: 'csv',
        count: 'true',
        ...(question.scope && { scope: question.scope }),
      });
      const res = await app.request(`${EXPORT}?${query}`, { auth: reviewer.auth });
      expect(res.status).toBe(200);
      expect({ question, subjects: Number(res.headers.get('x-review-subjects')) }).toEqual({ question, subjects: rows.length });
      await res.body?.cancel();
    }
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
      const expected = (await grantsOf(app.services.access, principal, null, [], new Date())).map((g) =>
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
