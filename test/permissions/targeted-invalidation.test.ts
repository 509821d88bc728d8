/**
 * Targeted invalidation (kernel/permission-cache.ts): a role assigned to or removed from
 * one user or service account drops the cached permissions of that subject only, in every
 * organization and through every credential it signs in with (password, service-account token),
 * and the next request of that subject sees the change; every other principal keeps its cached
 * credential and index (no SQL at its next request). Every other kind of write still drops every
 * entry (a team's roles here: its members can change while the write runs). Past
 * MAX_TARGETED_USERS remembered subjects the invalidation turns global, and a load that overlapped
 * a targeted invalidation of its subject is neither stored nor returned, nor are role rows read
 * meanwhile (`rowsOf`).
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ForeignCommits } from '../../src/kernel/foreign-commits.js';
import { Freshness, MAX_TARGETED_USERS } from '../../src/kernel/freshness.js';
import { PermissionCache } from '../../src/kernel/permission-cache.js';
import type { SignedInPrincipal } from '../../src/kernel/principal.js';
import { systemClock } from '../../src/platform/clock.js';
import { type Credentials, createTestApp, type TestApp } from '../support/app.js';
import { expectOutcome, gql, rest } from '../support/requests.js';
import { type Actor, createKey, createRole, createUser, p, seedFixtures, userPrincipal } from '../support/subjects.js';

let app: TestApp;
let subject: Actor;
let bystander: Actor;
let teamId: number;
let keyAuth: Credentials;

/** The actions `auth` holds, from its own (cached) permission map. */
async function actionsOf(auth: Credentials): Promise<string[]> {
  const out = await rest(app, 'GET', '/api/access-control/user/permissions', { auth });
  expectOutcome(out, 200);
  return Object.keys(out.body as Record<string, string[]>);
}

/** SQL statements `auth`'s next request of its own permissions sends. */
async function statementsOfNext(auth: Credentials): Promise<number> {
  app.resetQueries();
  await actionsOf(auth);
  return app.queries.length;
}

beforeAll(async () => {
  app = await createTestApp();
  const fx = await seedFixtures(app);
  subject = await createUser(app, 'targeted-subject');
  bystander = await createUser(app, 'targeted-bystander');
  teamId = fx.team.id;
  keyAuth = { token: (await createKey(app, { name: 'targeted-key', role: 'Viewer' })).key };
  await createRole(app, 'targeted-r1', [p('targeted:one')]);
  await createRole(app, 'targeted-r2', [p('targeted:two')]);
  // Each caller's first request also records when it was last seen (one write): made here.
  for (const auth of [subject.auth, bystander.auth, keyAuth]) await actionsOf(auth);
  await app.services.sessions.seenWritesSettled();
});

afterAll(() => app.close());

describe('a user role assignment drops its subject only', () => {
  it('REST add and GraphQL set: the subject sees each change at once; a user and an API key meanwhile send no SQL', async () => {
    for (const auth of [bystander.auth, keyAuth]) await actionsOf(auth);
    expect(await statementsOfNext(bystander.auth)).toBe(0);
    expect(await statementsOfNext(keyAuth)).toBe(0);

    expectOutcome(await rest(app, 'POST', `/api/access-control/users/${subject.id}/roles`, { json: { roleUid: 'targeted-r1' } }), 200);
    expect(await statementsOfNext(bystander.auth)).toBe(0);
    expect(await statementsOfNext(keyAuth)).toBe(0);
    expect(await actionsOf(subject.auth)).toContain('targeted:one');

    const set = 'mutation ($id: Int!) { setUserRoles(userId: $id, roleUids: ["targeted-r2"]) { message } }';
    expectOutcome(await gql(app, set, { id: subject.id }), 200);
    expect(await statementsOfNext(bystander.auth)).toBe(0);
    const actions = await actionsOf(subject.auth);
    expect(actions).toContain('targeted:two');
    expect(actions).not.toContain('targeted:one');

    expectOutcome(await rest(app, 'DELETE', `/api/access-control/users/${subject.id}/roles/targeted-r2`), 200);
    expect(await actionsOf(subject.auth)).not.toContain('targeted:two');
  });

  it('the subject itself reads again (the change was not skipped for it)', async () => {
    await actionsOf(subject.auth);
    expect(await statementsOfNext(subject.auth)).toBe(0);
    expectOutcome(await rest(app, 'POST', `/api/access-control/users/${subject.id}/roles`, { json: { roleUid: 'targeted-r1' } }), 200);
    expect(await statementsOfNext(subject.auth)).toBeGreaterThan(0);
    expectOutcome(await rest(app, 'DELETE', `/api/access-control/users/${subject.id}/roles/targeted-r1`), 200);
  });

  it("a service account's token sees an assignment to its account at the next request", async () => {
    const sa = await rest(app, 'POST', '/api/serviceaccounts', { json: { name: 'targeted-bot', role: 'Viewer' } });
    expectOutcome(sa, 201);
    const saId = (sa.body as { id: number }).id;
    const token = await rest(app, 'POST', `/api/serviceaccounts/${saId}/tokens`, { json: { name: 'targeted-token' } });
    expectOutcome(token, 200);
    const tokenAuth = { token: (token.body as { key: string }).key };
    expect(await actionsOf(tokenAuth)).not.toContain('targeted:one');
    expectOutcome(await rest(app, 'POST', `/api/access-control/users/${saId}/roles`, { json: { roleUid: 'targeted-r1' } }), 200);
    expect(await actionsOf(tokenAuth)).toContain('targeted:one');
    expectOutcome(await rest(app, 'DELETE', `/api/access-control/users/${saId}/roles/targeted-r1`), 200);
    expect(await actionsOf(tokenAuth)).not.toContain('targeted:one');
  });

  it('a global assignment reaches the subject acting in another organization', async () => {
    const org = await rest(app, 'POST', '/api/orgs', { json: { name: 'targeted-elsewhere' } });
    expectOutcome(org, 200);
    const orgId = (org.body as { orgId: number }).orgId;
    expectOutcome(await rest(app, 'POST', `/api/orgs/${orgId}/users`, { json: { loginOrEmail: subject.login, role: 'Viewer' } }), 200);
    const inOther = async () => {
      const out = await rest(app, 'GET', '/api/access-control/user/permissions', { auth: subject.auth, orgId });
      expectOutcome(out, 200);
      return Object.keys(out.body as Record<string, string[]>);
    };
    expect(await inOther()).not.toContain('targeted:one');
    await createRole(app, 'targeted-global', [p('targeted:global')], { orgId: 0 });
    const add = { roleUid: 'targeted-global', global: true };
    expectOutcome(await rest(app, 'POST', `/api/access-control/users/${subject.id}/roles`, { json: add }), 200);
    expect(await inOther()).toContain('targeted:global');
    expectOutcome(await rest(app, 'DELETE', `/api/access-control/users/${subject.id}/roles/targeted-global?global=true`), 200);
    expect(await inOther()).not.toContain('targeted:global');
  });
});

describe('other writes still drop every entry', () => {
  it("a team's role (REST): the bystander, no member, reads again", async () => {
    await actionsOf(bystander.auth);
    expect(await statementsOfNext(bystander.auth)).toBe(0);
    expectOutcome(await rest(app, 'POST', `/api/access-control/teams/${teamId}/roles`, { json: { roleUid: 'targeted-r1' } }), 200);
    expect(await statementsOfNext(bystander.auth)).toBeGreaterThan(0);
    expectOutcome(await rest(app, 'DELETE', `/api/access-control/teams/${teamId}/roles/targeted-r1`), 200);
  });
});

describe('the cache itself', () => {
  const alice = userPrincipal({ id: 101, login: 'alice' }, 'Viewer') as SignedInPrincipal;
  const bob = userPrincipal({ id: 102, login: 'bob' }, 'Viewer') as SignedInPrincipal;

  /** A cache whose loads count themselves and wait for `gate` when one is set. */
  function countingCache() {
    const loads = new Map<number, number>();
    let gate: Promise<void> | undefined;
    const freshness = new Freshness(new ForeignCommits(undefined));
    const cache = new PermissionCache(
      freshness,
      { maxBytes: 1 << 20, ttlMs: 60_000 },
      async (principal) => {
        loads.set(principal.id, (loads.get(principal.id) ?? 0) + 1);
        if (gate) await gate;
        return { permissions: [p(`held:${loads.get(principal.id)}`)], roleIds: [] };
      },
      systemClock,
    );
    return { cache, freshness, loads, hold: (until: Promise<void> | undefined) => (gate = until) };
  }

  it("drops the named user's entry and keeps the others' and the revision of changes to everyone", async () => {
    const { cache, freshness, loads } = countingCache();
    await cache.entryOf(alice);
    await cache.entryOf(bob);
    const revision = freshness.revision;
    freshness.applyToUsers([alice.id]);
    await cache.entryOf(alice);
    await cache.entryOf(bob);
    expect([loads.get(alice.id), loads.get(bob.id)]).toEqual([2, 1]);
    expect(freshness.revision).toBe(revision);
    expect(freshness.revisionOf(alice)).toBeGreaterThan(freshness.revisionOf(bob));
  });

  it('a load that overlapped a targeted invalidation of its user is loaded again, and only the new one is stored', async () => {
    const { cache, freshness, loads, hold } = countingCache();
    let release = () => {};
    hold(new Promise<void>((resolve) => (release = resolve)));
    const pending = cache.entryOf(alice);
    while (loads.get(alice.id) !== 1) await new Promise((resolve) => setImmediate(resolve));
    freshness.applyToUsers([alice.id]);
    hold(undefined);
    release();
    const entry = await pending;
    expect(loads.get(alice.id)).toBe(2);
    expect(entry.index.list().map((x) => x.action)).toEqual(['held:2']);
    expect((await cache.entryOf(alice)).index.list().map((x) => x.action)).toEqual(['held:2']);
    expect(loads.get(alice.id)).toBe(2);
  });

  it(`past ${MAX_TARGETED_USERS} remembered users it turns global`, async () => {
    const { cache, freshness, loads } = countingCache();
    await cache.entryOf(bob);
    const revision = freshness.revision;
    freshness.applyToUsers(Array.from({ length: MAX_TARGETED_USERS }, (_, i) => 1_000 + i));
    await cache.entryOf(bob);
    expect(freshness.revision).toBe(revision);
    expect(loads.get(bob.id)).toBe(1);
    freshness.applyToUsers([alice.id]);
    expect(freshness.revision).toBeGreaterThan(revision);
    await cache.entryOf(bob);
    expect(loads.get(bob.id)).toBe(2);
  });
});
