/**
 * GraphQL answers keep the fields in the order of the selection set (GraphQL spec §7.2.2), even
 * when fields that need the database come before fields that resolve at once: clients and the
 * walk-through tests (README.md, docs/walkthrough.md) compare printed answers, and a map in another order reads as another answer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(() => app.close());

/** The keys of every object in `value`, depth first, as `path: key,key`. */
function keyOrder(value: unknown, path = '$'): string[] {
  if (Array.isArray(value)) return value.length ? keyOrder(value[0], `${path}[0]`) : [];
  if (value === null || typeof value !== 'object') return [];
  const entries = Object.entries(value);
  return [`${path}: ${entries.map(([k]) => k).join(',')}`, ...entries.flatMap(([k, v]) => keyOrder(v, `${path}.${k}`))];
}

describe('GraphQL answer order', () => {
  it('follows the selection set: awaited fields, aliases and fragments in place', async () => {
    const query = `{
      viewer { roles { name uid } login can(action: "roles:read") orgRole permissions { scope action } }
      second: accessControlStatus { enabled }
      ...Tail
    }
    fragment Tail on Query { roles(includeHidden: false) { version uid } first: viewer { orgId login } }`;
    const res = await app.request('/graphql', { method: 'POST', json: { query } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { data: unknown };
    expect(keyOrder(body.data)).toEqual([
      '$: viewer,second,roles,first',
      '$.viewer: roles,login,can,orgRole,permissions',
      '$.viewer.roles[0]: name,uid',
      '$.viewer.permissions[0]: scope,action',
      '$.second: enabled',
      '$.roles[0]: version,uid',
      '$.first: orgId,login',
    ]);
  });
});
