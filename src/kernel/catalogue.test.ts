/**
 * Table tests of the catalogue: every declared action and scope is well formed by the catalogue's
 * own syntax rules, the scope builders produce the scopes their wildcards cover, and the syntax
 * rules at their edges (lengths, wildcard placement, white space). Matching itself: evaluator.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { Action, actionProblem, MAX_ACTION_LENGTH, MAX_SCOPE_LENGTH, ROLE_MANAGEMENT_ACTIONS, Scope, scopeProblem } from './catalogue.js';
import { PermissionIndex } from './evaluator.js';

describe('declared actions', () => {
  it.each(Object.entries(Action))('%s = %s is well formed', (_name, action) => {
    expect(actionProblem(action)).toBeNull();
  });
  it('are declared once each', () => {
    const values = Object.values(Action);
    expect(new Set(values).size).toBe(values.length);
  });
  it('the six role-management actions are the writes of roles and of role assignments', () => {
    expect([...ROLE_MANAGEMENT_ACTIONS].sort()).toEqual(
      ['roles:delete', 'roles:write', 'teams.roles:add', 'teams.roles:delete', 'users.roles:add', 'users.roles:delete'].sort(),
    );
    for (const action of ROLE_MANAGEMENT_ACTIONS) expect(Object.values(Action)).toContain(action);
  });
});

describe('declared scopes', () => {
  const fixed = Object.entries(Scope).flatMap(([name, scope]) => (typeof scope === 'string' ? [[name, scope] as const] : []));
  it.each(fixed)('%s = %s is well formed', (_name, scope) => {
    expect(scopeProblem(scope)).toBeNull();
  });

  // Each builder's scope, the wildcard that must cover it, and a wildcard that must not.
  const built: { scope: string; expected: string; coveredBy: string; notBy: string }[] = [
    { scope: Scope.user(7), expected: 'users:id:7', coveredBy: Scope.UsersAll, notBy: Scope.GlobalUsersAll },
    { scope: Scope.globalUser(7), expected: 'global.users:id:7', coveredBy: Scope.GlobalUsersAll, notBy: Scope.UsersAll },
    { scope: Scope.team(3), expected: 'teams:id:3', coveredBy: Scope.TeamsAll, notBy: Scope.UsersAll },
    { scope: Scope.serviceAccount(4), expected: 'serviceaccounts:id:4', coveredBy: Scope.ServiceAccountsAll, notBy: Scope.UsersAll },
    { scope: Scope.org(2), expected: 'orgs:id:2', coveredBy: Scope.OrgsAll, notBy: Scope.TeamsAll },
    { scope: Scope.apiKey(9), expected: 'apikey:id:9', coveredBy: Scope.ApiKeysAll, notBy: Scope.ServiceAccountsAll },
    { scope: Scope.role('abc'), expected: 'roles:uid:abc', coveredBy: Scope.RolesAll, notBy: Scope.TeamsAll },
    { scope: Scope.Delegate, expected: 'permissions:type:delegate', coveredBy: Scope.PermissionTypesAll, notBy: Scope.Escalate },
    { scope: Scope.Escalate, expected: 'permissions:type:escalate', coveredBy: Scope.PermissionTypesAll, notBy: Scope.Delegate },
  ];
  it.each(built)('$expected: covered by $coveredBy, not by $notBy', ({ scope, expected, coveredBy, notBy }) => {
    expect(scope).toBe(expected);
    expect(scopeProblem(scope)).toBeNull();
    const held = (s: string) => PermissionIndex.from([{ action: 'a:b', scope: s }]);
    expect(held(coveredBy).matches('a:b', scope)).toBe(true);
    expect(held(Scope.All).matches('a:b', scope)).toBe(true);
    expect(held(notBy).matches('a:b', scope)).toBe(false);
  });
  it('a builder accepts the id as a number or a string', () => {
    expect(Scope.team('3')).toBe(Scope.team(3));
  });
});

describe('scope syntax at its edges', () => {
  const cases: { scope: string; problem: RegExp | null }[] = [
    { scope: '', problem: null },
    { scope: '*', problem: null },
    { scope: 'a:*', problem: null },
    { scope: 'a:b:c:d:*', problem: null },
    { scope: 'folders:uid:général', problem: null },
    { scope: `a:${'b'.repeat(MAX_SCOPE_LENGTH - 2)}`, problem: null },
    { scope: `a:${'b'.repeat(MAX_SCOPE_LENGTH - 1)}`, problem: /longer than 190/ },
    { scope: 'a', problem: /not of the form/ },
    { scope: 'a:', problem: /empty or malformed segment/ },
    { scope: ':a', problem: /empty or malformed segment/ },
    { scope: 'a::*', problem: /empty or malformed segment/ },
    { scope: '**', problem: /not of the form/ },
    { scope: 'a:**', problem: /wildcard is only valid as the last segment/ },
    { scope: 'a:b*', problem: /wildcard is only valid as the last segment/ },
    { scope: '*:a', problem: /wildcard is only valid as the last segment/ },
    { scope: 'a:*:*', problem: /wildcard is only valid as the last segment/ },
    { scope: 'a:b\tc', problem: /empty or malformed segment/ },
    { scope: 'a:b\nc', problem: /empty or malformed segment/ },
    { scope: 'a:b?', problem: /empty or malformed segment/ },
  ];
  it.each(cases)('$scope -> $problem', ({ scope, problem }) => {
    const got = scopeProblem(scope);
    if (problem === null) expect(got).toBeNull();
    else expect(got).toMatch(problem);
  });
});

describe('action syntax at its edges', () => {
  const cases: { action: string; problem: RegExp | null }[] = [
    { action: 'a:b', problem: null },
    { action: 'users.roles:add', problem: null },
    { action: 'plugins.app-x:do_it', problem: null },
    { action: `a:${'b'.repeat(MAX_ACTION_LENGTH - 2)}`, problem: null },
    { action: `a:${'b'.repeat(MAX_ACTION_LENGTH - 1)}`, problem: /longer than 190/ },
    { action: '', problem: /must not be empty/ },
    { action: 'a', problem: /not of the form/ },
    { action: 'a:*', problem: /not of the form/ },
    { action: 'a::b', problem: /not of the form/ },
    { action: 'a:b:', problem: /not of the form/ },
    { action: 'a:b c', problem: /not of the form/ },
    { action: 'a:é', problem: /not of the form/ },
  ];
  it.each(cases)('$action -> $problem', ({ action, problem }) => {
    const got = actionProblem(action);
    if (problem === null) expect(got).toBeNull();
    else expect(got).toMatch(problem);
  });
});
