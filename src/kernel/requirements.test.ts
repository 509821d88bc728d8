/**
 * Table tests of the requirement declaration: one object gives the evaluator a service checks for
 * concrete parameters, and the text both doors document (placeholders for the parameters, the
 * note on what is checked besides). The route table's requirements against what each service
 * enforces: test/http/route-requirements.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { all, any, PermissionIndex, permission } from './evaluator.js';
import { needs, requirement } from './requirements.js';

const idx = (...pairs: [string, string][]) => PermissionIndex.from(pairs.map(([action, scope]) => ({ action, scope })));

describe('requirement(): the evaluator for concrete parameters', () => {
  const readTeam = requirement(['id'], ({ id }) => permission('teams:read', `teams:id:${id}`));
  const cases: { name: string; id: number | string; held: [string, string][]; passes: boolean }[] = [
    { name: 'the exact id held', id: 3, held: [['teams:read', 'teams:id:3']], passes: true },
    { name: 'another id held', id: 4, held: [['teams:read', 'teams:id:3']], passes: false },
    { name: 'the id as a string', id: '3', held: [['teams:read', 'teams:id:3']], passes: true },
    { name: 'a wildcard held', id: 99, held: [['teams:read', 'teams:*']], passes: true },
    { name: 'another action', id: 3, held: [['teams:write', 'teams:id:3']], passes: false },
  ];
  it.each(cases)('$name -> $passes', ({ id, held, passes }) => {
    const evaluator = readTeam.for({ id });
    expect(evaluator.evaluate(idx(...held))).toBe(passes);
    expect(evaluator.describe()).toBe(`action: teams:read scopes: teams:id:${id}`);
  });
});

describe('requirement(): the documented text', () => {
  const cases: { name: string; declared: { text(): string; note: string | undefined }; text: string }[] = [
    { name: 'no parameter, no scope', declared: requirement([], () => permission('teams:create')), text: 'teams:create' },
    {
      name: 'a parameter becomes a placeholder',
      declared: requirement(['userId'], ({ userId }) => permission('users.permissions:read', `users:id:${userId}`)),
      text: 'users.permissions:read on users:id:<userId>',
    },
    {
      name: 'two parameters',
      declared: requirement(['orgId', 'userId'], (p) => permission('org.users:write', `orgs:id:${p.orgId}:users:id:${p.userId}`)),
      text: 'org.users:write on orgs:id:<orgId>:users:id:<userId>',
    },
    {
      name: 'alternative scopes',
      declared: requirement([], () => permission('roles:write', 'permissions:type:delegate', 'permissions:type:escalate')),
      text: 'roles:write on permissions:type:delegate or permissions:type:escalate',
    },
    {
      name: 'all() joins with and, the note follows',
      declared: requirement([], () => all(permission('a:add', 'x:*'), permission('a:delete', 'x:*')), 'and each role (delegation)'),
      text: 'a:add on x:* and a:delete on x:*, and each role (delegation)',
    },
    {
      name: 'any() joins with or',
      declared: requirement(['id'], ({ id }) =>
        any(permission('teams:read', `teams:id:${id}`), permission('teams.permissions:read', `teams:id:${id}`)),
      ),
      text: 'teams:read on teams:id:<id> or teams.permissions:read on teams:id:<id>',
    },
  ];
  it.each(cases)('$name: $text', ({ declared, text }) => {
    expect(declared.text()).toBe(text);
  });
  it('keeps the note for readers, undefined without one', () => {
    expect(requirement([], () => permission('a:b'), 'and a Service Admin').note).toBe('and a Service Admin');
    expect(requirement([], () => permission('a:b')).note).toBeUndefined();
  });
  it('needs() is the GraphQL description suffix', () => {
    expect(needs(requirement([], () => permission('apikey:read', 'apikey:*')))).toBe('Needs apikey:read on apikey:*.');
  });
});
