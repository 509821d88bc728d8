/**
 * The one delegation rule (delegation.ts), case by case, as Grafana's `_test.go` tables: the
 * Service Admin flag, the org-role ceiling, coverage, the escalation right of the grant's action
 * only, and one standing per organization. The paths that build Grants are tested at request
 * level (test/security/delegation-paths*.test.ts) and by the property test
 * (test/security/delegation-property.test.ts).
 */
import { describe, expect, it } from 'vitest';
import type { PermissionPair } from './catalogue.js';
import { type Grant, grantRefusal, mayDelegate, requireDelegation, requireRoleWithin, type Standing } from './delegation.js';
import { isDomainError } from './errors.js';
import { PermissionIndex } from './evaluator.js';
import type { OrgRole, UserPrincipal } from './principal.js';

const p = (action: string, scope = ''): PermissionPair => ({ action, scope });
const idx = (...perms: PermissionPair[]) => PermissionIndex.from(perms);
const ADD = 'users.roles:add';
const WRITE_USERS = p('users:write', 'global.users:*');
const PASSWORDS = p('users.password:write', 'global.users:*');
const TEAMS_READ = p('teams:read', 'teams:*');

interface Case {
  name: string;
  serviceAdmin?: boolean;
  /** The caller's standing per organization (org 1 unless given). */
  standing: Record<number, { held: PermissionPair[]; orgRole: OrgRole }>;
  grant: Omit<Grant, 'what' | 'action'> & { action?: string };
  /** undefined: allowed; otherwise a piece of the 403 text. */
  refused?: string;
}

const cases: Case[] = [
  {
    name: 'covered permissions pass',
    standing: { 1: { held: [WRITE_USERS, PASSWORDS], orgRole: 'Viewer' } },
    grant: { gains: [{ orgId: 1, permissions: [p('users:write', 'global.users:id:3')] }] },
  },
  {
    name: 'an uncovered permission is named (a team giving users:write)',
    standing: { 1: { held: [TEAMS_READ], orgRole: 'Admin' } },
    grant: { gains: [{ orgId: 1, permissions: [WRITE_USERS, TEAMS_READ] }] },
    refused: 'delegation of users:write on global.users:* in organization 1',
  },
  {
    name: 'a narrower wildcard does not cover a broader one',
    standing: { 1: { held: [p('users:write', 'global.users:id:*')], orgRole: 'Admin' } },
    grant: { gains: [{ orgId: 1, permissions: [WRITE_USERS] }] },
    refused: 'users:write on global.users:*',
  },
  {
    name: 'a scopeless permission is covered by the action under any scope',
    standing: { 1: { held: [p('users:create', 'x:1')], orgRole: 'None' } },
    grant: { gains: [{ orgId: 1, permissions: [p('users:create')] }] },
  },
  {
    name: 'the escalation right of the grant action exempts coverage',
    standing: { 1: { held: [p(ADD, 'permissions:type:escalate')], orgRole: 'None' } },
    grant: { gains: [{ orgId: 1, permissions: [WRITE_USERS, PASSWORDS] }] },
  },
  {
    name: 'a scope covering escalate is an escalation right too (permissions:type:*)',
    standing: { 1: { held: [p(ADD, 'permissions:type:*')], orgRole: 'None' } },
    grant: { gains: [{ orgId: 1, permissions: [WRITE_USERS] }] },
  },
  {
    name: 'delegate is no escalation right',
    standing: { 1: { held: [p(ADD, 'permissions:type:delegate')], orgRole: 'Admin' } },
    grant: { gains: [{ orgId: 1, permissions: [WRITE_USERS] }] },
    refused: 'or users.roles:add on permissions:type:escalate',
  },
  {
    name: "another action's escalation right does not exempt (roles:write on escalate, the resetter's)",
    standing: { 1: { held: [p('roles:write', 'permissions:type:escalate')], orgRole: 'Admin' } },
    grant: { gains: [{ orgId: 1, permissions: [WRITE_USERS] }] },
    refused: 'delegation of users:write',
  },
  {
    name: 'the org-role ceiling: Editor cannot give Admin even when covering its permissions',
    standing: { 1: { held: [WRITE_USERS], orgRole: 'Editor' } },
    grant: { gains: [{ orgId: 1, orgRole: 'Admin', permissions: [] }] },
    refused: "Cannot assign a role higher than user's role (Admin is above Editor in organization 1",
  },
  {
    name: 'escalation does not lift the ceiling (Grafana: only a server admin may)',
    standing: { 1: { held: [p(ADD, '*')], orgRole: 'Viewer' } },
    grant: { gains: [{ orgId: 1, orgRole: 'Editor', permissions: [] }] },
    refused: 'Editor is above Viewer',
  },
  {
    name: 'a Service Admin passes the ceiling',
    serviceAdmin: true,
    standing: { 1: { held: [p(ADD, 'permissions:type:*')], orgRole: 'None' } },
    grant: { gains: [{ orgId: 1, orgRole: 'Admin', permissions: [WRITE_USERS] }] },
  },
  {
    name: 'a Service Admin subject needs a Service Admin caller, whatever it holds',
    standing: { 1: { held: [p(ADD, '*'), WRITE_USERS, PASSWORDS], orgRole: 'Admin' } },
    grant: { gains: [], serviceAdmin: true },
    refused: 'Service Admin to',
  },
  {
    name: 'a Service Admin controls a Service Admin',
    serviceAdmin: true,
    standing: { 1: { held: [p(ADD, 'permissions:type:*')], orgRole: 'Admin' } },
    grant: { gains: [{ orgId: 1, orgRole: 'Admin', permissions: [WRITE_USERS] }], serviceAdmin: true },
  },
  {
    name: 'each organization is checked against the standing there: covered in 1, not in 2',
    standing: { 1: { held: [TEAMS_READ], orgRole: 'Admin' }, 2: { held: [], orgRole: 'None' } },
    grant: {
      gains: [
        { orgId: 1, orgRole: 'Viewer', permissions: [TEAMS_READ] },
        { orgId: 2, orgRole: 'Viewer', permissions: [TEAMS_READ] },
      ],
    },
    refused: 'Viewer is above None in organization 2',
  },
  {
    name: 'an escalation right held in one organization is not one in another',
    standing: { 1: { held: [p(ADD, 'permissions:type:escalate')], orgRole: 'Admin' }, 2: { held: [], orgRole: 'Admin' } },
    grant: { gains: [{ orgId: 2, permissions: [WRITE_USERS] }] },
    refused: 'users:write on global.users:* in organization 2',
  },
  {
    name: 'nothing to give: always allowed',
    standing: { 1: { held: [], orgRole: 'None' } },
    grant: { gains: [{ orgId: 1, permissions: [] }] },
  },
];

describe('the one delegation rule (grantRefusal)', () => {
  it.each(cases)('$name', ({ serviceAdmin = false, standing, grant, refused }) => {
    const standingIn = (orgId: number): Standing => {
      const s = standing[orgId];
      if (!s) throw new Error(`no standing for organization ${orgId}`);
      return { index: idx(...s.held), orgRole: s.orgRole };
    };
    const refusal = grantRefusal({ isServiceAdmin: serviceAdmin }, standingIn, { what: 'test change', action: ADD, ...grant });
    if (refused === undefined) {
      expect(refusal).toBeUndefined();
    } else {
      expect(refusal?.code).toBe('ACCESS_DENIED');
      expect(refusal?.status).toBe(403);
      expect(refusal?.message).toContain(refused);
    }
  });

  it('names the change and bounds the list of missing permissions', () => {
    const many = Array.from({ length: 20 }, (_, i) => p(`x:a${i}`, 'x:*'));
    const refusal = grantRefusal({ isServiceAdmin: false }, () => ({ index: idx(), orgRole: 'Admin' }), {
      what: 'add user 7 to team 3',
      action: ADD,
      gains: [{ orgId: 1, permissions: many }],
    });
    expect(refusal?.message).toContain('(to add user 7 to team 3; or users.roles:add on permissions:type:escalate)');
    expect(refusal?.message).toContain('and 12 more');
    expect(refusal?.message).not.toContain('x:a19');
  });
});

describe('the single-organization forms (role paths)', () => {
  const table: { held: PermissionPair[]; wanted: PermissionPair[]; ok: boolean }[] = [
    { held: [p('roles:write', 'permissions:type:delegate'), TEAMS_READ], wanted: [TEAMS_READ], ok: true },
    { held: [p('roles:write', 'permissions:type:delegate')], wanted: [TEAMS_READ], ok: false },
    { held: [p('roles:write', 'permissions:type:escalate')], wanted: [TEAMS_READ], ok: true },
    { held: [TEAMS_READ], wanted: [TEAMS_READ], ok: false }, // covered, but no roles:write at all
  ];
  it.each(table)('mayDelegate roles:write %#', ({ held, wanted, ok }) => {
    expect(mayDelegate(idx(...held), 'roles:write', wanted)).toBe(ok);
  });

  it('requireDelegation throws ACCESS_DENIED "delegation of ..." unless covered or escalating', () => {
    expect(() => requireDelegation(idx(TEAMS_READ), 'roles:write', [TEAMS_READ])).not.toThrow();
    expect(() => requireDelegation(idx(p('roles:write', '*')), 'roles:write', [WRITE_USERS])).not.toThrow();
    try {
      requireDelegation(idx(TEAMS_READ), 'roles:write', [WRITE_USERS]);
      expect.unreachable();
    } catch (error) {
      expect(isDomainError(error) && error.code).toBe('ACCESS_DENIED');
      expect((error as Error).message).toContain('delegation of users:write on global.users:*');
    }
  });

  it('requireRoleWithin: at most the caller’s own org role, unless Service Admin', () => {
    const caller = (orgRole: OrgRole, isServiceAdmin = false): UserPrincipal => ({
      kind: 'user',
      id: 1,
      login: 'c',
      orgId: 1,
      orgRole,
      isServiceAdmin,
      authMethod: 'basic',
    });
    expect(() => requireRoleWithin(caller('Editor'), 'Editor')).not.toThrow();
    expect(() => requireRoleWithin(caller('Editor'), 'Admin')).toThrow(
      "Cannot assign a role higher than user's role (Admin is above Editor)",
    );
    expect(() => requireRoleWithin(caller('None', true), 'Admin')).not.toThrow();
  });
});

describe('delegation knows time (Grant.until, PermissionIndex.through)', () => {
  const T = Date.parse('2026-11-28T12:00:00Z');
  const before = new Date(T - 60_000);
  const after = new Date(T + 60_000);
  /** Holds WRITE_USERS until T only (a time-bound assignment), TEAMS_READ for good. */
  const ending = () => PermissionIndex.from([WRITE_USERS, TEAMS_READ], [{ ...WRITE_USERS, until: T }]);
  const table: { name: string; index: () => PermissionIndex; until: Date | null; wanted: PermissionPair[]; refused?: string }[] = [
    { name: 'a grant ending before the hold ends passes', index: ending, until: before, wanted: [WRITE_USERS] },
    { name: 'a grant ending when the hold ends passes', index: ending, until: new Date(T), wanted: [WRITE_USERS] },
    {
      name: 'a grant ending after the hold is refused',
      index: ending,
      until: after,
      wanted: [WRITE_USERS],
      refused: `until ${after.toISOString()}`,
    },
    { name: 'a grant for good is refused', index: ending, until: null, wanted: [WRITE_USERS], refused: 'for good' },
    { name: 'what is held for good covers a grant for good', index: ending, until: null, wanted: [TEAMS_READ] },
    {
      name: 'a narrower permission covered only by the ending wildcard is refused past it',
      index: ending,
      until: after,
      wanted: [p('users:write', 'global.users:id:3')],
      refused: 'users:write on global.users:id:3',
    },
    {
      name: 'a permission held both ways counts as held for good',
      index: () => PermissionIndex.from([WRITE_USERS], []),
      until: null,
      wanted: [WRITE_USERS],
    },
    {
      name: 'the escalation right is read at the moment, whatever its end',
      index: () => PermissionIndex.from([p(ADD, 'permissions:type:escalate')], [{ ...p(ADD, 'permissions:type:escalate'), until: T }]),
      until: null,
      wanted: [WRITE_USERS],
    },
  ];
  it.each(table)('$name', ({ index, until, wanted, refused }) => {
    const refusal = grantRefusal({ isServiceAdmin: false }, () => ({ index: index(), orgRole: 'Admin' }), {
      what: 'assign a role',
      action: ADD,
      gains: [{ orgId: 1, permissions: wanted }],
      until,
    });
    if (refused === undefined) expect(refusal).toBeUndefined();
    else expect(refusal?.message).toContain(refused);
    // requireDelegation, the assignment paths' form, agrees.
    const direct = () => requireDelegation(index(), ADD, wanted, until);
    if (refused === undefined) expect(direct).not.toThrow();
    else expect(direct).toThrow(refused);
  });

  it('through(): the index less what ends before the moment', () => {
    const index = ending();
    expect(index.through(T).matches('users:write', 'global.users:id:1')).toBe(true);
    expect(index.through(T + 1).matches('users:write', 'global.users:id:1')).toBe(false);
    expect(index.through(null).matches('teams:read', 'teams:id:1')).toBe(true);
    expect(PermissionIndex.from([TEAMS_READ]).through(null)).toBeInstanceOf(PermissionIndex);
  });
});
