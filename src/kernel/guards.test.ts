/**
 * Table tests of the shared access rules in guards.ts that are plain arithmetic: signed in, the
 * Service Admin gate, the org-role ceiling, the organization named by an operation, and the id
 * filters of list endpoints. The delegation functions (requireCoverage, canEscalate,
 * mayDelegate, requireDelegation) have their own tests. Request-level tests prove that the
 * services call these rules on both doors.
 */
import { describe, expect, it } from 'vitest';
import { DomainError } from './errors.js';
import { PermissionIndex } from './evaluator.js';
import {
  idFilter,
  permittedIds,
  requireActingIn,
  requireRoleWithin,
  requireServiceAdmin,
  requireSignedIn,
  visibleMemberships,
} from './guards.js';
import { ANONYMOUS, type ApiKeyPrincipal, ORG_ROLES, type OrgRole, type Principal, type UserPrincipal } from './principal.js';

const user = (orgRole: OrgRole, options: { orgId?: number; isServiceAdmin?: boolean } = {}): UserPrincipal => ({
  kind: 'user',
  id: 7,
  login: 'someone',
  orgId: options.orgId ?? 1,
  orgRole,
  isServiceAdmin: options.isServiceAdmin ?? false,
  authMethod: 'basic',
});
const apiKey = (orgRole: OrgRole): ApiKeyPrincipal => ({
  kind: 'apiKey',
  id: 3,
  name: 'key',
  orgId: 1,
  orgRole,
  isServiceAdmin: false,
  authMethod: 'api_key',
});
const idx = (...pairs: [string, string][]) => PermissionIndex.from(pairs.map(([action, scope]) => ({ action, scope })));

/** The DomainError `fn` throws (code, status, message), or null when it returns. */
function thrown(fn: () => void): { code: string; status: number; message: string } | null {
  try {
    fn();
    return null;
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    return { code: error.code, status: error.status, message: error.message };
  }
}

describe('requireSignedIn', () => {
  it.each([
    { name: 'anonymous', who: ANONYMOUS as Principal, code: 'UNAUTHENTICATED' },
    { name: 'a user with org role None', who: user('None'), code: null },
    { name: 'an API key', who: apiKey('Viewer'), code: null },
  ])('$name -> $code', ({ who, code }) => {
    expect(thrown(() => requireSignedIn(who))?.code ?? null).toBe(code);
  });
  it('answers Grafana’s 401 text', () => {
    expect(thrown(() => requireSignedIn(ANONYMOUS))).toEqual({ code: 'UNAUTHENTICATED', status: 401, message: 'Unauthorized' });
  });
});

describe('requireServiceAdmin', () => {
  it.each([
    { name: 'Service Admin', who: user('None', { isServiceAdmin: true }), allowed: true },
    { name: 'org Admin', who: user('Admin'), allowed: false },
    { name: 'Admin API key', who: apiKey('Admin'), allowed: false },
    { name: 'anonymous', who: ANONYMOUS as Principal, allowed: false },
  ])('$name -> allowed=$allowed', ({ who, allowed }) => {
    const error = thrown(() => requireServiceAdmin(who, 'write global roles'));
    expect(error === null).toBe(allowed);
    if (error) {
      expect(error).toMatchObject({ code: 'ACCESS_DENIED', status: 403 });
      expect(error.message).toContain('Service Admin to write global roles');
    }
  });
});

// Grafana: "Cannot assign a role higher than user's role" (org users, service accounts, API keys).
describe('requireRoleWithin (the org-role ceiling)', () => {
  const cases = ORG_ROLES.flatMap((own) =>
    ORG_ROLES.map((given) => ({ own, given, allowed: ORG_ROLES.indexOf(given) <= ORG_ROLES.indexOf(own) })),
  );
  it('the table covers every pair of org roles', () => {
    expect(cases).toHaveLength(16);
    expect(cases.filter((c) => c.allowed).map((c) => `${c.own}>=${c.given}`)).toEqual([
      'None>=None',
      'Viewer>=None',
      'Viewer>=Viewer',
      'Editor>=None',
      'Editor>=Viewer',
      'Editor>=Editor',
      'Admin>=None',
      'Admin>=Viewer',
      'Admin>=Editor',
      'Admin>=Admin',
    ]);
  });
  it.each(cases)('a user with $own gives $given -> allowed=$allowed', ({ own, given, allowed }) => {
    const error = thrown(() => requireRoleWithin(user(own), given));
    expect(error === null).toBe(allowed);
    if (error) {
      expect(error).toMatchObject({ code: 'ACCESS_DENIED', status: 403 });
      expect(error.message).toBe(`Cannot assign a role higher than user's role (${given} is above ${own})`);
    }
  });
  it.each(ORG_ROLES)('a Service Admin with org role None may give %s', (given) => {
    expect(thrown(() => requireRoleWithin(user('None', { isServiceAdmin: true }), given))).toBeNull();
  });
  it.each([
    { own: 'Editor', given: 'Admin', allowed: false },
    { own: 'Admin', given: 'Admin', allowed: true },
  ] as const)('an API key with $own gives $given -> allowed=$allowed', ({ own, given, allowed }) => {
    expect(thrown(() => requireRoleWithin(apiKey(own), given)) === null).toBe(allowed);
  });
});

describe('requireActingIn (operations naming an organization)', () => {
  it.each([
    { name: 'the org it acts in', who: user('Viewer', { orgId: 2 }), orgId: 2, allowed: true },
    { name: 'another org, as its Admin elsewhere', who: user('Admin', { orgId: 1 }), orgId: 2, allowed: false },
    { name: 'another org, as Service Admin', who: user('None', { orgId: 1, isServiceAdmin: true }), orgId: 2, allowed: true },
    { name: 'an org that does not exist', who: user('Admin', { orgId: 1 }), orgId: 999, allowed: false },
    { name: 'org 0, anonymous', who: ANONYMOUS as Principal, orgId: 0, allowed: true },
  ])('$name -> allowed=$allowed', ({ who, orgId, allowed }) => {
    const error = thrown(() => requireActingIn(who, orgId));
    expect(error === null).toBe(allowed);
    if (error) {
      expect(error).toMatchObject({ code: 'ACCESS_DENIED', status: 403 });
      expect(error.message).toContain(`X-Service-Org-Id: ${orgId}`);
    }
  });
});

// Grafana filters list endpoints by the ids of held scopes after checking the action alone.
describe('permittedIds and idFilter (list filtering by held scopes)', () => {
  const cases: { name: string; held: [string, string][]; ids: 'all' | number[]; where: object }[] = [
    { name: 'nothing held', held: [], ids: [], where: { id: { in: [] } } },
    { name: '*', held: [['teams:read', '*']], ids: 'all', where: {} },
    { name: 'area wildcard', held: [['teams:read', 'teams:*']], ids: 'all', where: {} },
    { name: 'id wildcard', held: [['teams:read', 'teams:id:*']], ids: 'all', where: {} },
    {
      name: 'exact ids (in the order of the index: by scope text)',
      held: [
        ['teams:read', 'teams:id:3'],
        ['teams:read', 'teams:id:12'],
      ],
      ids: [12, 3],
      where: { id: { in: [12, 3] } },
    },
    { name: 'another action', held: [['teams:write', 'teams:id:3']], ids: [], where: { id: { in: [] } } },
    { name: 'another area with the same prefix', held: [['teams:read', 'teamsx:id:3']], ids: [], where: { id: { in: [] } } },
    { name: 'a scope by name, not id', held: [['teams:read', 'teams:name:x']], ids: [], where: { id: { in: [] } } },
    { name: 'a non-numeric id', held: [['teams:read', 'teams:id:abc']], ids: [], where: { id: { in: [] } } },
    { name: 'a negative id', held: [['teams:read', 'teams:id:-1']], ids: [], where: { id: { in: [] } } },
    { name: 'an id of 11 digits', held: [['teams:read', 'teams:id:12345678901']], ids: [], where: { id: { in: [] } } },
    { name: 'an id of 10 digits', held: [['teams:read', 'teams:id:1234567890']], ids: [1234567890], where: { id: { in: [1234567890] } } },
    { name: 'the action without scope', held: [['teams:read', '']], ids: [], where: { id: { in: [] } } },
  ];
  it.each(cases)('$name -> $ids', ({ held, ids, where }) => {
    const got = permittedIds(idx(...held), 'teams:read', 'teams:id:');
    expect(got).toEqual(ids);
    expect(idFilter(got)).toEqual(where);
  });
});

describe('visibleMemberships (the organization wall on memberships)', () => {
  it.each([
    { name: 'Service Admin', who: user('None', { orgId: 2, isServiceAdmin: true }), where: {} },
    { name: 'org Admin of org 2', who: user('Admin', { orgId: 2 }), where: { orgId: 2 } },
    { name: 'API key of org 1', who: apiKey('Admin'), where: { orgId: 1 } },
  ])('$name -> $where', ({ who, where }) => {
    expect(visibleMemberships(who)).toEqual(where);
  });
});
