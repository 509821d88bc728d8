/**
 * ROLE_ALREADY_EXISTS names what exists: the role holding the name, with its
 * uid, or the taken uid; never the uid generated for the role that was not created. Both doors.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { expectOutcome, gql, rest } from '../support/requests.js';

let app: TestApp;

beforeAll(async () => {
  app = await createTestApp();
  expectOutcome(await rest(app, 'POST', '/api/access-control/roles', { json: { uid: 'dup-holder', name: 'custom:dup' } }), 200);
  expectOutcome(
    await rest(app, 'POST', '/api/access-control/roles', { json: { uid: 'dup-global', name: 'custom:dup-global', global: true } }),
    200,
  );
  expectOutcome(await rest(app, 'POST', '/api/access-control/roles', { json: { uid: 'dup-other', name: 'custom:other' } }), 200);
});
afterAll(() => app.close());

const CREATE = 'mutation ($input: CreateRoleInput!) { createRole(input: $input) { uid } }';
const UPDATE = 'mutation ($uid: String!, $input: UpdateRoleInput!) { updateRole(uid: $uid, input: $input) { uid } }';

/** Every uid quoted in `message` (`uid "..."`) is a role the caller can read. */
async function quotedUidsExist(message: string): Promise<void> {
  const uids = [...message.matchAll(/uid "([^"]+)"/g)].map((m) => m[1]);
  expect(uids.length).toBeGreaterThan(0);
  for (const uid of uids) expectOutcome(await rest(app, 'GET', `/api/access-control/roles/${uid}`), 200);
}

describe('creating a role whose name or uid is taken: 409 naming what exists', () => {
  it.each([
    {
      door: 'REST',
      send: (input: Record<string, unknown>) => rest(app, 'POST', '/api/access-control/roles', { json: input }),
    },
    { door: 'GraphQL', send: (input: Record<string, unknown>) => gql(app, CREATE, { input }) },
  ])('$door', async ({ send }) => {
    // The name is taken; the uid would have been generated.
    const byName = expectOutcome(await send({ name: 'custom:dup' }), 409, 'ROLE_ALREADY_EXISTS');
    expect(byName).toBe('a role in organization 1 named "custom:dup" already exists (uid "dup-holder")');
    await quotedUidsExist(byName);

    // The name is free; the uid sent is taken.
    const byUid = expectOutcome(await send({ uid: 'dup-holder', name: 'custom:free' }), 409, 'ROLE_ALREADY_EXISTS');
    expect(byUid).toBe('a role with uid "dup-holder" already exists');
    await quotedUidsExist(byUid);

    // Global roles are their own namespace, named as such.
    const global = expectOutcome(await send({ name: 'custom:dup-global', global: true }), 409, 'ROLE_ALREADY_EXISTS');
    expect(global).toBe('a global role named "custom:dup-global" already exists (uid "dup-global")');
    await quotedUidsExist(global);
  });

  it('the same name in the other namespace (global vs organization) is no clash', async () => {
    expectOutcome(await rest(app, 'POST', '/api/access-control/roles', { json: { name: 'custom:dup-global' } }), 200);
  });
});

describe('renaming a role to a taken name: 409 naming the role that holds it', () => {
  it.each([
    {
      door: 'REST',
      send: (input: Record<string, unknown>) => rest(app, 'PUT', '/api/access-control/roles/dup-other', { json: input }),
    },
    { door: 'GraphQL', send: (input: Record<string, unknown>) => gql(app, UPDATE, { uid: 'dup-other', input }) },
  ])('$door', async ({ send }) => {
    const message = expectOutcome(await send({ name: 'custom:dup', version: 5 }), 409, 'ROLE_ALREADY_EXISTS');
    expect(message).toBe('a role in organization 1 named "custom:dup" already exists (uid "dup-holder")');
  });
});
