import { describe, expect, it } from 'vitest';
import { Action, type PermissionPair, Scope } from '../../kernel/catalogue.js';
import { isDomainError } from '../../kernel/errors.js';
import { PermissionIndex } from '../../kernel/evaluator.js';
import { requireDelegation } from '../../kernel/guards.js';
import type { BasicRoleName } from '../../kernel/principal.js';
import { grantAdditions, reachedBasicRoles, type StoredProductRole } from './grants.js';
import type { ProductRoleInput } from './inputs.js';

const p = (action: string, scope = ''): PermissionPair => ({ action, scope });
const READ = p('notes:read', 'notes:*');
const WRITE = p('notes:write', 'notes:*');
const declared = (permissions: PermissionPair[], grants: BasicRoleName[] = []): ProductRoleInput => ({
  role: { name: 'plugins:notes:r', permissions },
  grants,
});
const stored = (permissions: PermissionPair[], basicRoles: string[]): StoredProductRole => ({
  name: 'plugins:notes:r',
  permissions,
  basicGrants: basicRoles.map((basicRole) => ({ basicRole })),
});

describe('reachedBasicRoles: Grafana inheritance', () => {
  it.each([
    [['Viewer'], ['Viewer', 'Editor', 'Admin']],
    [['Editor'], ['Editor', 'Admin']],
    [['Admin'], ['Admin']],
    [['Service Admin'], ['Service Admin']],
    [[], []],
  ] as [BasicRoleName[], string[]][])('%j reaches %j', (grants, reached) => {
    expect([...reachedBasicRoles(grants)].sort()).toEqual([...reached].sort());
  });
});

describe('grantAdditions: what a registration adds to basic roles', () => {
  const cases: { why: string; stored: StoredProductRole[]; declared: ProductRoleInput[]; added: PermissionPair[] }[] = [
    {
      why: 'a new role granted to Viewer adds all its permissions',
      stored: [],
      declared: [declared([READ, WRITE], ['Viewer'])],
      added: [READ, WRITE],
    },
    { why: 'a role without grants adds nothing', stored: [], declared: [declared([READ, WRITE])], added: [] },
    {
      why: 'the same registration again adds nothing',
      stored: [stored([READ], ['Viewer', 'Editor', 'Admin'])],
      declared: [declared([READ], ['Viewer'])],
      added: [],
    },
    {
      why: 'a new permission on a granted role is added',
      stored: [stored([READ], ['Admin'])],
      declared: [declared([READ, WRITE], ['Admin'])],
      added: [WRITE],
    },
    {
      why: 'a grant widened to a new basic role adds all permissions',
      stored: [stored([READ, WRITE], ['Admin'])],
      declared: [declared([READ, WRITE], ['Editor'])],
      added: [READ, WRITE],
    },
    {
      why: 'a narrowed grant adds nothing',
      stored: [stored([READ], ['Viewer', 'Editor', 'Admin'])],
      declared: [declared([READ], ['Admin'])],
      added: [],
    },
    {
      why: 'fewer permissions add nothing',
      stored: [stored([READ, WRITE], ['Admin'])],
      declared: [declared([READ], ['Admin'])],
      added: [],
    },
    {
      why: 'a grant newly made to Service Admin adds all',
      stored: [stored([READ], ['Admin'])],
      declared: [declared([READ], ['Admin', 'Service Admin'])],
      added: [READ],
    },
  ];
  it.each(cases)('$why', (c) => {
    expect(grantAdditions(c.stored, c.declared)).toEqual(c.added);
  });
});

describe('the registration rule: requireDelegation(roles:write) over the additions', () => {
  const additions = grantAdditions([], [declared([READ, WRITE], ['Viewer'])]);
  const refused = (index: PermissionIndex) => {
    try {
      requireDelegation(index, Action.RolesWrite, additions);
      return null;
    } catch (error) {
      return isDomainError(error) ? error.code : 'other';
    }
  };
  it.each([
    { who: 'roles:write on escalate', held: [p(Action.RolesWrite, Scope.Escalate)], code: null },
    {
      who: 'roles:write on delegate, covering both',
      held: [p(Action.RolesWrite, Scope.Delegate), p('notes:read', 'notes:*'), p('notes:write', '*')],
      code: null,
    },
    { who: 'roles:write on delegate, covering one', held: [p(Action.RolesWrite, Scope.Delegate), READ], code: 'ACCESS_DENIED' },
    { who: 'another action on escalate', held: [p(Action.UsersRolesAdd, Scope.Escalate), READ], code: 'ACCESS_DENIED' },
  ])('$who -> $code', ({ held, code }) => {
    expect(refused(PermissionIndex.from(held))).toBe(code);
  });
});
