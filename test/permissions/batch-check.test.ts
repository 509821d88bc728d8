/**
 * The batch check on both doors (POST /api/access-control/check/batch, GraphQL `checkMany`):
 * every item answered as the single check answers it (the single check is the oracle, and the
 * kernel's evaluator on each subject's index behind it), in request order, at the revision of the
 * last change; an item that is bad alone carries its own error; the limit is declared and a
 * larger batch refused with a stable code.
 */
import { describe, expect, it } from 'vitest';
import { permission } from '../../src/kernel/evaluator.js';
import { MAX_BATCH_ITEMS } from '../../src/modules/permissions/inputs.js';
import { expectOutcome, gql, rest } from '../support/requests.js';
import { app, fx, useSeededApp } from '../support/scene.js';
import { assignTeamRole, assignUserRole, createRole, createTeam, createUser, p, unique, userPrincipal } from '../support/subjects.js';

useSeededApp();

const CHECK = '/api/access-control/check';
const BATCH = '/api/access-control/check/batch';
const CHECK_MANY = `query($items: [CheckManyItemInput!]!) { checkMany(items: $items) {
  revision results { id allowed subjectDisabled missing { action scope } error { code message }
    grantedBy { role { uid name } source permission { action scope } } } } }`;

type Item = { id: string; userId?: number | string; action: string; scopes?: string[] };
type Answer = { id: string; error: { code: string; message: string } | null } & Record<string, unknown>;

/** A world with every source kind: direct, team, basic, a disabled member, a user of another org. */
async function world() {
  const noter = await createUser(app, unique('noter'), { orgRole: 'Editor' });
  const direct = await createRole(app, unique('batch-direct'), [p('notes:write', 'notes:id:7'), p('notes:read', 'notes:*')]);
  await assignUserRole(app, noter.id, direct.uid);
  const teamRole = await createRole(app, unique('batch-team'), [p('notes:delete', 'notes:id:*')]);
  const team = await createTeam(app, unique('batch-team'), { members: [noter.id, fx.viewer.id] });
  await assignTeamRole(app, team.id, teamRole.uid);
  const disabled = await createUser(app, unique('disabled'), { orgRole: 'Admin' });
  await app.database.prisma.user.update({ where: { id: disabled.id }, data: { isDisabled: true } });
  app.services.access.invalidate();
  const elsewhere = await createUser(app, unique('elsewhere'), { orgId: fx.org2.id, orgRole: 'Admin' });
  return { noter, disabled, elsewhere };
}

/** Items over every subject and several actions and scopes, with a bad one and an unknown subject. */
function itemsOver(userIds: number[]): Item[] {
  const actions: [string, string[] | undefined][] = [
    ['notes:write', ['notes:id:7']],
    ['notes:write', ['notes:id:8', 'notes:id:7']],
    ['notes:read', ['notes:id:1']],
    ['notes:delete', ['notes:id:3']],
    ['teams:read', ['teams:id:1']],
    ['users:write', undefined],
    ['orgs:write', [`orgs:id:1`]],
    ['roles:write', ['permissions:type:delegate']],
  ];
  const items: Item[] = [];
  for (const userId of [undefined, ...userIds])
    for (const [action, scopes] of actions)
      items.push({ id: `i${items.length}`, ...(userId && { userId }), action, ...(scopes && { scopes }) });
  items.push({ id: 'bad-action', action: 'not an action' });
  items.push({ id: 'unknown-user', userId: 999_999, action: 'notes:read' });
  return items;
}

/** The single check's answer to one item (status and body), the oracle of each batch answer. */
async function single(item: Item, auth = fx.admin.auth) {
  const { id: _id, ...body } = item;
  return rest(app, 'POST', CHECK, { json: body, auth });
}

/** Asserts each batch answer is the single check's: its fields when 200, its code as the item's error otherwise. */
async function expectSameAsSingle(items: Item[], answers: Answer[], auth = fx.admin.auth) {
  expect(answers.map((a) => a.id)).toEqual(items.map((i) => i.id));
  for (const [i, item] of items.entries()) {
    const one = await single(item, auth);
    const answer = answers[i] as Answer;
    if (one.status === 200)
      expect({ ...answer, id: undefined, error: undefined }, item.id).toEqual({ ...(one.body as object), id: undefined, error: undefined });
    else expect(answer.error?.code, item.id).toBe(one.code);
  }
}

describe('POST /api/access-control/check/batch', () => {
  it('answers every item as the single check, in order, with per-item errors, at the revision of the last change', async () => {
    const { noter, disabled, elsewhere } = await world();
    const write = await app.request('/api/access-control/roles', {
      method: 'POST',
      json: { name: unique('batch-mark'), permissions: [] },
    });
    expect(write.status).toBe(200);
    const revision = Number(write.headers.get('x-access-revision'));
    const items = itemsOver([noter.id, fx.viewer.id, disabled.id, elsewhere.id, fx.serviceAccount.id]);
    const res = await rest(app, 'POST', BATCH, { json: { items } });
    expectOutcome(res, 200);
    const body = res.body as { revision: number; results: Answer[] };
    expect(body.revision).toBe(revision);
    await expectSameAsSingle(items, body.results);
    const byId = new Map(body.results.map((a) => [a.id, a]));
    expect(byId.get('bad-action')?.error?.code).toBe('VALIDATION_FAILED');
    expect(byId.get('unknown-user')?.error?.code).toBe('USER_NOT_FOUND');
    expect(body.results.filter((a) => a.subjectDisabled === true).length).toBeGreaterThan(0);
    expect(body.results.some((a) => (a.grantedBy as { source: string }[] | undefined)?.some((g) => g.source.startsWith('team:')))).toBe(
      true,
    );
  });

  it("agrees with the kernel's evaluator on each subject's own index", async () => {
    const { noter } = await world();
    const items = itemsOver([noter.id, fx.editor.id]).filter((i) => i.id.startsWith('i'));
    const body = (await rest(app, 'POST', BATCH, { json: { items } })).body as { results: Answer[] };
    const subjects = new Map([
      [undefined, userPrincipal(fx.admin, 'Admin', 1, true)],
      [noter.id, userPrincipal(noter, 'Editor')],
      [fx.editor.id, userPrincipal(fx.editor, 'Editor')],
    ]);
    for (const [i, item] of items.entries()) {
      const index = await app.services.access.permissionsOf(subjects.get(item.userId as number | undefined) ?? (fx.admin as never));
      expect(body.results[i]?.allowed, item.id).toBe(permission(item.action, ...(item.scopes ?? [])).evaluate(index));
    }
  });

  it('a caller who may not check others gets ACCESS_DENIED on those items only; itself is answered', async () => {
    const items: Item[] = [
      { id: 'me', action: 'teams:read', scopes: ['teams:id:1'] },
      { id: 'other', userId: fx.editor.id, action: 'teams:read' },
      { id: 'me-by-id', userId: fx.viewer.id, action: 'orgs:write' },
    ];
    const res = await rest(app, 'POST', BATCH, { json: { items }, auth: fx.viewer.auth });
    expectOutcome(res, 200);
    const results = (res.body as { results: Answer[] }).results;
    expect(results.map((r) => r.error?.code ?? null)).toEqual([null, 'ACCESS_DENIED', null]);
    await expectSameAsSingle(items, results, fx.viewer.auth);
  });

  it(`answers ${MAX_BATCH_ITEMS} items; refuses one more with 400 BATCH_TOO_LARGE; a malformed envelope with 400`, async () => {
    const items = Array.from({ length: MAX_BATCH_ITEMS }, (_, i) => ({ id: String(i), action: 'teams:read', scopes: [`teams:id:${i}`] }));
    const ok = await rest(app, 'POST', BATCH, { json: { items } });
    expectOutcome(ok, 200);
    expect((ok.body as { results: Answer[] }).results.every((r, i) => r.id === String(i) && r.allowed === true)).toBe(true);
    expectOutcome(
      await rest(app, 'POST', BATCH, { json: { items: [...items, { id: 'x', action: 'teams:read' }] } }),
      400,
      'BATCH_TOO_LARGE',
    );
    expectOutcome(
      await rest(app, 'POST', BATCH, {
        json: {
          items: [
            { id: 'a', action: 'teams:read' },
            { id: 'a', action: 'teams:read' },
          ],
        },
      }),
      400,
      'VALIDATION_FAILED',
    );
    expectOutcome(await rest(app, 'POST', BATCH, { json: { items: [{ action: 'teams:read' }] } }), 400, 'VALIDATION_FAILED');
    expectOutcome(await rest(app, 'POST', BATCH, { json: [] }), 400, 'VALIDATION_FAILED');
    expectOutcome(await rest(app, 'POST', BATCH, { json: { items: [] }, auth: null }), 401, 'UNAUTHENTICATED');
  });

  it('declares the limit in the OpenAPI document', async () => {
    const doc = (await rest(app, 'GET', '/api/openapi.json')).body as { paths: Record<string, { post?: unknown }> };
    const text = JSON.stringify(doc.paths[BATCH]?.post ?? doc);
    expect(text).toContain(`"maxItems":${MAX_BATCH_ITEMS}`);
  });
});

describe('GraphQL checkMany', () => {
  it('answers as the REST batch, item for item', async () => {
    const { noter } = await world();
    const items = itemsOver([noter.id, fx.viewer.id]);
    const viaRest = (await rest(app, 'POST', BATCH, { json: { items } })).body as { revision: number; results: Answer[] };
    const res = await gql(app, CHECK_MANY, { items });
    expectOutcome(res, 200);
    const viaGraphql = res.data?.checkMany as { revision: number; results: Answer[] };
    expect(viaGraphql.revision).toBe(viaRest.revision);
    const strip = (a: Answer) =>
      a.error
        ? { id: a.id, code: a.error.code }
        : { id: a.id, allowed: a.allowed, grantedBy: a.grantedBy, missing: a.missing, subjectDisabled: a.subjectDisabled };
    expect(viaGraphql.results.map(strip)).toEqual(viaRest.results.map(strip));
  });

  it('declares the limit in the schema and refuses a larger batch with 400 BATCH_TOO_LARGE', async () => {
    const items = Array.from({ length: MAX_BATCH_ITEMS + 1 }, (_, i) => ({ id: String(i), action: 'teams:read' }));
    expectOutcome(await gql(app, CHECK_MANY, { items }), 400, 'BATCH_TOO_LARGE');
    const described = await gql(app, '{ __type(name: "Query") { fields { name description } } }', {});
    const field = (described.data as { __type: { fields: { name: string; description: string }[] } }).__type.fields.find(
      (f) => f.name === 'checkMany',
    );
    expect(field?.description).toContain(`Up to ${MAX_BATCH_ITEMS}`);
  });

  it('a caller who may not check others gets ACCESS_DENIED on those items only', async () => {
    const items = [
      { id: 'me', action: 'teams:read' },
      { id: 'other', userId: fx.editor.id, action: 'teams:read' },
    ];
    const res = await gql(app, CHECK_MANY, { items }, { auth: fx.viewer.auth });
    const results = (res.data as { checkMany: { results: Answer[] } }).checkMany.results;
    expect(results.map((r) => [r.allowed, r.error?.code ?? null])).toEqual([
      [true, null],
      [null, 'ACCESS_DENIED'],
    ]);
  });
});
