/**
 * Reserved-name look-alikes at the doors: custom roles named like the reserved `fixed:`, `basic:`,
 * `plugins:` and `managed:` roles through white space (space, tab, Unicode spaces) or a character
 * whose confusable skeleton is ":" (U+0903, U+1361, U+FE30, ...) are refused with 400
 * VALIDATION_FAILED on create and on rename, on REST and GraphQL, and nothing is written. Names
 * that merely contain the words stay accepted. The comparison itself is table-tested in
 * src/kernel/lookalikes.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { expectOutcome, gql, type Outcome, rest } from '../support/requests.js';
import { unique } from '../support/subjects.js';

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(() => app.close());

const CREATE = 'mutation($input: CreateRoleInput!) { createRole(input: $input) { uid name } }';
const UPDATE = 'mutation($uid: String!, $input: UpdateRoleInput!) { updateRole(uid: $uid, input: $input) { uid name } }';

function create(door: 'rest' | 'graphql', input: Record<string, unknown>): Promise<Outcome> {
  return door === 'rest' ? rest(app, 'POST', '/api/access-control/roles', { json: input }) : gql(app, CREATE, { input });
}
function update(door: 'rest' | 'graphql', uid: string, input: Record<string, unknown>): Promise<Outcome> {
  return door === 'rest' ? rest(app, 'PUT', `/api/access-control/roles/${uid}`, { json: input }) : gql(app, UPDATE, { uid, input });
}

const rolesState = () => app.database.prisma.role.findMany({ orderBy: { id: 'asc' }, select: { uid: true, name: true, version: true } });

const LOOK_ALIKES: [string, string][] = [
  ['fixed + U+0903 + a', 'fixed\u0903a'],
  ['fixed + U+1361 + a', 'fixed\u1361a'],
  ['fixed :a', 'fixed :a'],
  ['fixed<TAB>:a', 'fixed\t:a'],
  ['basic<NBSP>:a', 'basic\u00a0:a'],
  ['plugins<IDEOGRAPHIC SPACE>:a', 'plugins\u3000:a'],
  ['managed:a', 'managed:a'],
  ['Managed + U+2806 + a', 'Managed\u2806a'],
  ['fixed + U+FE30 + a', 'fixed\ufe30a'],
  ['basic + U+05C3 + a', 'basic\u05c3a'],
  ['fixed + U+0589 + a', 'fixed\u0589a'],
  ['basic + U+02D0 + a', 'basic\u02d0a'],
  ['plugins + U+FE13 + a', 'plugins\ufe13a'],
  ['plugins + U+FE55 + a', 'plugins\ufe55a'],
  ['fixed + U+0703 + a', 'fixed\u0703a'],
  ['fixed + U+16EC + a', 'fixed\u16eca'],
  ['fixed + U+205A + a', 'fixed\u205aa'],
  ['f i x e d : a', 'f i x e d : a'],
];

describe.each(['rest', 'graphql'] as const)('reserved-name look-alikes through %s', (door) => {
  it.each(LOOK_ALIKES)('create refuses %s with 400 and writes nothing', async (_label, name) => {
    const before = await rolesState();
    const message = expectOutcome(await create(door, { name }), 400, 'VALIDATION_FAILED');
    expect(message).toMatch(/"fixed:", "basic:", "plugins:", "managed:"/);
    expect(await rolesState()).toEqual(before);
  });

  it('renaming a custom role to each look-alike is refused and leaves it as it was', async () => {
    const created = await create(door, { name: unique('custom:plain') });
    expectOutcome(created, 200);
    const uid =
      door === 'rest'
        ? (created.body as { uid: string }).uid
        : (created.body as { data: { createRole: { uid: string } } }).data.createRole.uid;
    for (const [, name] of LOOK_ALIKES) {
      const before = await rolesState();
      expectOutcome(await update(door, uid, { name, version: 1 }), 400, 'VALIDATION_FAILED');
      expect(await rolesState()).toEqual(before);
    }
  });

  it('names that only contain the words, or white space elsewhere, are accepted', async () => {
    for (const base of ['fixed a', 'fixed-price editor', 'my basic: role', 'managed services', 'plugins reader', 'Reports: editor']) {
      const name = `${base} ${unique('n')}`;
      const outcome = await create(door, { name });
      expectOutcome(outcome, 200);
    }
  });
});
