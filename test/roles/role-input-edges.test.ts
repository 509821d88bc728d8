/**
 * Role inputs, both doors side by side: reserved name prefixes are checked
 * after Unicode normalization (NFKC, case, invisible characters, TR39 look-alikes), reserved uid
 * prefixes are refused, names are stored NFC, and versions follow the one rule of
 * kernel/role-version.ts: a create leaves room for a higher version, a role at
 * the ceiling (2147483647, the largest GraphQL Int) stays updatable, automatic bumps stop there. A caller without the permission gets 403 whatever body it
 * sends (the permission is checked before the body).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedRoleUid } from '../../src/kernel/builtin-roles.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { expectOutcome, gql, type Outcome, rest } from '../support/requests.js';
import { createUser, unique } from '../support/subjects.js';

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(() => app.close());

const CREATE = 'mutation($input: CreateRoleInput!) { createRole(input: $input) { uid name version } }';
const UPDATE = 'mutation($uid: String!, $input: UpdateRoleInput!) { updateRole(uid: $uid, input: $input) { uid name version } }';

/** Creates a role through one door; `input` is the REST body and the GraphQL input alike. */
function create(door: 'rest' | 'graphql', input: Record<string, unknown>): Promise<Outcome> {
  return door === 'rest' ? rest(app, 'POST', '/api/access-control/roles', { json: input }) : gql(app, CREATE, { input });
}
function update(door: 'rest' | 'graphql', uid: string, input: Record<string, unknown>): Promise<Outcome> {
  return door === 'rest' ? rest(app, 'PUT', `/api/access-control/roles/${uid}`, { json: input }) : gql(app, UPDATE, { uid, input });
}
type RoleOut = { uid: string; name: string; version: number };

/** The role a successful outcome answered. */
function role(door: 'rest' | 'graphql', outcome: Outcome): RoleOut {
  expectOutcome(outcome, 200);
  if (door === 'rest') return outcome.body as RoleOut;
  const data = (outcome.body as { data: { createRole?: RoleOut; updateRole?: RoleOut } }).data;
  return (data.createRole ?? data.updateRole) as RoleOut;
}

const DOORS = ['rest', 'graphql'] as const;

const LOOK_ALIKES: [string, string][] = [
  ['exact', 'fixed:x'],
  ['upper case', 'FIXED:x'],
  ['Cyrillic і', 'f\u0456xed:x'],
  ['fullwidth letters', '\uff46\uff49\uff58\uff45\uff44:x'],
  ['modifier-letter colon', 'fixed\ua789x'],
  ['zero-width space', 'fi\u200bxed:x'],
  ['script capital', '\u212cAsic:x'],
  ['Cyrillic а', 'b\u0430sic:x'],
  ['Greek ρ', '\u03c1lugins:x'],
  ['fullwidth colon', 'plugins\uff1ax'],
  ['Cyrillic о in a longer name', 'fixed:r\u043ees:writer'],
  ['f with hook ƒ', '\u0192ixed:x'],
  ['i with a combining dot above', 'fi\u0307xed:x'],
  ['accented í', 'f\u00edxed:x'],
  ['b with hook ɓ', '\u0253asic:x'],
  ['g with hook ɠ', 'plu\u0260ins:x'],
];

describe.each(DOORS)('reserved names and uids through %s', (door) => {
  it.each(LOOK_ALIKES)('create refuses a name that looks like a reserved prefix: %s', async (_label, name) => {
    const message = expectOutcome(await create(door, { name }), 400, 'VALIDATION_FAILED');
    expect(message).toMatch(/fixed:.*basic:.*plugins:/);
  });

  it('names that merely contain the words stay allowed', async () => {
    for (const name of [`custom:fixed:${unique('a')}`, `fixedly:${unique('b')}`, `basics ${unique('c')}`, `plugin:${unique('d')}`]) {
      expect(role(door, await create(door, { name })).name).toBe(name);
    }
  });

  it('update refuses renaming a custom role to a look-alike; a basic role keeps its own name', async () => {
    const created = role(door, await create(door, { name: unique('custom:rename') }));
    expectOutcome(await update(door, created.uid, { name: 'b\u0430sic:viewer', version: 1 }), 400, 'VALIDATION_FAILED');
    expectOutcome(await update(door, created.uid, { name: '\uff42asic:viewer', version: 1 }), 400, 'VALIDATION_FAILED');
    const basic = await rest(app, 'GET', '/api/access-control/roles/basic_viewer');
    const version = (basic.body as { version: number }).version + 1;
    expect(role(door, await update(door, 'basic_viewer', { name: 'basic:viewer', version })).name).toBe('basic:viewer');
  });

  it.each(['fixed_x', 'basic_viewer2', 'plugins_abc', 'Fixed_x', 'BASIC_x', fixedRoleUid('fixed:roles:reader')])(
    'create refuses a uid with a reserved prefix: %s',
    async (uid) => {
      const message = expectOutcome(await create(door, { uid, name: unique('custom:uid') }), 400, 'VALIDATION_FAILED');
      expect(message).toMatch(/^uid: .*"fixed_", "basic_", "plugins_"/);
    },
  );

  it('names are stored NFC: a decomposed and a composed "é" are the same name', async () => {
    const base = unique('custom:caf');
    const created = role(door, await create(door, { name: `${base}e\u0301` }));
    expect(created.name).toBe(`${base}\u00e9`);
    expectOutcome(await create(door, { name: `${base}\u00e9` }), 409, 'ROLE_ALREADY_EXISTS');
  });
});

describe.each(DOORS)('the highest version through %s', (door) => {
  const MAX = 2_147_483_647;
  const RESET = 'mutation { resetBasicRoles(basicRoles: true) { message } }';

  it('create refuses 2147483647, which would leave no higher version for an update: 400 VALIDATION_FAILED, nothing created', async () => {
    const name = unique('custom:max');
    const message = expectOutcome(await create(door, { name, version: MAX }), 400, 'VALIDATION_FAILED');
    expect(message).toBe(
      'version: version must be at most 2147483646 when a role is created, so that an update (which needs a higher version) stays possible',
    );
    expect(await app.database.prisma.role.count({ where: { name } })).toBe(0);
  });

  it('a role created at the highest creatable version takes the next one, then the ceiling again', async () => {
    const created = role(door, await create(door, { name: unique('custom:v'), version: MAX - 1 }));
    expect(created.version).toBe(MAX - 1);
    expectOutcome(await update(door, created.uid, { name: created.name, version: MAX - 1 }), 400, 'ROLE_VERSION_CONFLICT');
    expect(role(door, await update(door, created.uid, { name: created.name, version: MAX })).version).toBe(MAX);
    const again = role(door, await update(door, created.uid, { name: `${created.name}-again`, version: MAX }));
    expect(again).toMatchObject({ name: `${created.name}-again`, version: MAX });
    expectOutcome(await update(door, created.uid, { name: created.name, version: MAX - 1 }), 400, 'ROLE_VERSION_CONFLICT');
  });

  it('a version past 2147483647 is 400 VALIDATION_FAILED on create and update, and says how a role at the ceiling is updated', async () => {
    expectOutcome(await create(door, { name: unique('custom:big'), version: MAX + 1 }), 400, 'VALIDATION_FAILED');
    const existing = role(door, await create(door, { name: unique('custom:big'), version: MAX - 1 }));
    expect(role(door, await update(door, existing.uid, { name: existing.name, version: MAX })).version).toBe(MAX);
    const message = expectOutcome(await update(door, existing.uid, { name: existing.name, version: MAX + 1 }), 400, 'VALIDATION_FAILED');
    // GraphQL refuses the number as an Int before the service sees it, with graphql-js's words.
    expect(message).toContain(door === 'rest' ? 'a role already at 2147483647 is updated with 2147483647 again' : '2147483648');
  });

  it('a reset of a basic role at the ceiling keeps it there, and it is still answered', async () => {
    const stored = (await rest(app, 'GET', '/api/access-control/roles/basic_editor')).body as { version: number };
    if (stored.version < MAX) role(door, await update(door, 'basic_editor', { name: 'basic:editor', version: MAX }));
    const reset =
      door === 'rest'
        ? await rest(app, 'POST', '/api/access-control/roles/hard-reset', { json: { BasicRoles: true } })
        : await gql(app, RESET, {});
    expectOutcome(reset, 200);
    const after = await gql(app, '{ role(uid: "basic_editor") { version } }', {});
    expectOutcome(after, 200);
    expect(after.body).toEqual({ data: { role: { version: MAX } } });
  });
});

describe('the permission before the body', () => {
  it('a Viewer sending bad bodies to create, update and reset gets 403, not 400', async () => {
    const viewer = await createUser(app, unique('edges-viewer'), { orgRole: 'Viewer' });
    const auth = viewer.auth;
    expectOutcome(await rest(app, 'POST', '/api/access-control/roles', { json: { name: 42 }, auth }), 403, 'ACCESS_DENIED');
    expectOutcome(await rest(app, 'PUT', '/api/access-control/roles/basic_viewer', { json: { version: 'x' }, auth }), 403, 'ACCESS_DENIED');
    expectOutcome(
      await rest(app, 'POST', '/api/access-control/roles/hard-reset', { json: { BasicRoles: 'yes' }, auth }),
      403,
      'ACCESS_DENIED',
    );
    expectOutcome(await gql(app, CREATE, { input: { name: 'fixed:nope' } }, { auth }), 403, 'ACCESS_DENIED');
    expectOutcome(await rest(app, 'POST', '/api/access-control/roles', { json: { name: 42 } }), 400, 'VALIDATION_FAILED');
  });
});
