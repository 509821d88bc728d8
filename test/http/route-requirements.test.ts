/**
 * Each REST route declares its requirement (the object the feature service checks): a caller who
 * holds nothing (org role None) gets 403 whose message is Grafana's text for that requirement's
 * evaluator (actions only, as Grafana's evaluator prints them), and whose details (GraphQL
 * `extensions.details.needed`, the denial's log line) name the evaluator exactly, scopes and
 * route parameters included. So a route table entry cannot drift from the rule the service
 * enforces, and the GraphQL descriptions (printed from the same objects) cannot either.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '../../src/http/routes.js';
import { DomainError, grafanaPermissionsText } from '../../src/kernel/errors.js';
import { principalOf } from '../../src/kernel/principal.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { expectOutcome, handlerInput, rest } from '../support/requests.js';
import { type Actor, createUser, seedFixtures } from '../support/subjects.js';

let app: TestApp;
let nobody: Actor;
let values: Record<string, string>;

/** A body every write route accepts as well-formed, so validation passes and the check decides. */
const WELL_FORMED_BODY = { name: 'probe', version: 1, roleUid: 'probe', roleUids: [], BasicRoles: false, role: 'Viewer', roles: [] };

beforeAll(async () => {
  app = await createTestApp();
  const fx = await seedFixtures(app);
  nobody = await createUser(app, 'route-probe', { orgRole: 'None' });
  values = {
    userId: String(fx.viewer.id),
    teamId: String(fx.team.id),
    id: '1',
    uid: 'basic_viewer',
    roleUID: 'basic_viewer',
    productId: 'probe',
    tokenId: '1',
    orgId: '1',
    name: 'probe',
  };
});

afterAll(async () => {
  await app?.close();
});

const guarded = routes.filter((r) => r.requires !== 'signed-in' && r.requires !== 'anonymous');

describe('every guarded route answers 403 naming its declared requirement', () => {
  it('covers the route table', () => {
    expect(guarded.length).toBeGreaterThan(10);
  });

  it.each(guarded.map((r) => [`${r.method} ${r.path}`, r] as const))('%s', async (_name, route) => {
    const params: Record<string, string> = {};
    const path = route.path.replace(/:([A-Za-z]+)/g, (_m, name: string) => {
      const value = values[name];
      if (value === undefined) throw new Error(`no probe value for :${name}`);
      params[name] = value;
      return value;
    });
    const requirement = route.requires;
    if (requirement === 'signed-in' || requirement === 'anonymous') throw new Error('guarded holds no signed-in or anonymous route');
    const firstId = Object.values(params)[0] ?? '1';
    const expected = requirement.for({ id: firstId, ...params }).describe();
    const out = await rest(app, route.method, path, {
      auth: nobody.auth,
      ...(route.method === 'POST' || route.method === 'PUT' || route.method === 'PATCH' ? { json: WELL_FORMED_BODY } : {}),
    });
    const message = expectOutcome(out, 403, 'ACCESS_DENIED');
    expect(message).toBe(
      `You'll need additional permissions to perform this action. Permissions needed: ${grafanaPermissionsText(expected)}`,
    );
    // The same denial from the handler itself: its details name the evaluator with its scopes.
    const principal = principalOf({ ...nobody, isServiceAccount: false, isServiceAdmin: false }, 1, 'None', 'basic');
    const denial = await route
      .handler(handlerInput(app, { principal, params, query: new URLSearchParams(), body: WELL_FORMED_BODY, clientAddress: 'test' }))
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(denial).toBeInstanceOf(DomainError);
    expect(denial).toMatchObject({ code: 'ACCESS_DENIED', details: { needed: expected } });
  });
});
