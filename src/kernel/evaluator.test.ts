import { describe, expect, it } from 'vitest';
import { actionProblem, scopeProblem } from './catalogue.js';
import { all, any, PermissionIndex, permission } from './evaluator.js';

const idx = (...pairs: [string, string][]) => PermissionIndex.from(pairs.map(([action, scope]) => ({ action, scope })));

// upstream-behaviour.md "Permission evaluation": scope match, case by case.
describe('scope matching', () => {
  const cases: { held: string; target: string; match: boolean; why: string }[] = [
    { held: '*', target: 'users:id:7', match: true, why: '* covers everything' },
    { held: '*', target: 'permissions:type:delegate', match: true, why: '* covers delegate' },
    { held: 'users:*', target: 'users:id:7', match: true, why: 'area wildcard covers ids' },
    { held: 'users:*', target: 'users:id:*', match: true, why: 'users:* covers users:id:*' },
    { held: 'users:id:*', target: 'users:id:7', match: true, why: 'attribute wildcard covers id' },
    { held: 'users:id:*', target: 'users:login:x', match: false, why: 'users:id:* does not cover logins' },
    { held: 'users:id:*', target: 'users:*', match: false, why: 'narrower wildcard does not cover broader' },
    { held: 'users:id:7', target: 'users:id:7', match: true, why: 'equal scopes' },
    { held: 'users:id:7', target: 'users:id:70', match: false, why: 'no prefix match without wildcard' },
    { held: 'users:id:7', target: 'users:id:*', match: false, why: 'a single id does not cover all ids' },
    { held: 'users:*', target: 'teams:id:1', match: false, why: 'other area' },
    { held: 'users:*', target: 'usersx:id:1', match: false, why: 'prefix ends at the colon' },
    { held: 'users:*', target: 'users:', match: true, why: 'empty remainder still starts with the prefix' },
    { held: '', target: 'users:id:7', match: false, why: 'no scope matches no target' },
    { held: '', target: '', match: false, why: 'a held empty scope matches nothing' },
    { held: 'teams:id:1', target: 'TEAMS:id:1', match: false, why: 'case-sensitive' },
  ];
  it.each(cases)('$held vs $target -> $match ($why)', ({ held, target, match }) => {
    expect(idx(['a:b', held]).matches('a:b', target)).toBe(match);
    expect(permission('a:b', target).evaluate(idx(['a:b', held]))).toBe(match);
  });

  it('needs the action, whatever the scopes', () => {
    expect(idx(['users:read', '*']).matches('users:write', 'users:id:1')).toBe(false);
  });
  it('a check without targets needs only the action', () => {
    expect(permission('users:create').evaluate(idx(['users:create', '']))).toBe(true);
    expect(permission('users:create').evaluate(idx(['users:create', 'users:id:1']))).toBe(true);
    expect(permission('users:create').evaluate(idx(['users:read', '']))).toBe(false);
  });
  it('several targets: one matching target is enough', () => {
    const held = idx(['dashboards:read', 'folders:uid:a']);
    expect(permission('dashboards:read', 'dashboards:uid:x', 'folders:uid:a').evaluate(held)).toBe(true);
    expect(permission('dashboards:read', 'dashboards:uid:x', 'folders:uid:b').evaluate(held)).toBe(false);
  });
  it('many wildcards at different depths', () => {
    const held = idx(['a:b', 'x:*'], ['a:b', 'users:id:*'], ['a:b', 'teams:id:3']);
    expect(held.matches('a:b', 'users:id:9')).toBe(true);
    expect(held.matches('a:b', 'x:y:z:w')).toBe(true);
    expect(held.matches('a:b', 'teams:id:3')).toBe(true);
    expect(held.matches('a:b', 'teams:id:4')).toBe(false);
  });
});

describe('many wildcard prefixes for one action (the Set lookup path)', () => {
  const pairs: [string, string][] = Array.from({ length: 12 }, (_, i) => ['a:b', `area${i}:id:*`]);
  pairs.push(['a:b', 'deep:x:y:*'], ['a:b', 'exact:id:1']);
  const held = idx(...pairs);
  it.each([
    ['area3:id:9', true],
    ['area11:id:x', true],
    ['area12:id:1', false],
    ['area3:login:x', false],
    ['deep:x:y:z', true],
    ['deep:x:z', false],
    ['exact:id:1', true],
    ['exact:id:2', false],
    ['area3:id:*', true],
  ] as const)('%s -> %s', (target, match) => {
    expect(held.matches('a:b', target)).toBe(match);
  });
});

describe('composition', () => {
  const held = idx(['roles:read', 'roles:*'], ['users.roles:add', 'permissions:type:delegate']);
  const yes = permission('roles:read', 'roles:*');
  const no = permission('roles:write', 'permissions:type:delegate');
  it.each([
    { name: 'all(yes)', e: all(yes), result: true },
    { name: 'all(yes, no)', e: all(yes, no), result: false },
    { name: 'all()', e: all(), result: true },
    { name: 'any(no, yes)', e: any(no, yes), result: true },
    { name: 'any(no)', e: any(no), result: false },
    { name: 'any()', e: any(), result: false },
    { name: 'all(any(no, yes), yes)', e: all(any(no, yes), yes), result: true },
    { name: 'any(all(yes, no), no)', e: any(all(yes, no), no), result: false },
  ])('$name -> $result', ({ e, result }) => {
    expect(e.evaluate(held)).toBe(result);
  });
  it('describes what is needed', () => {
    expect(all(yes, no).describe()).toBe('all(action: roles:read scopes: roles:* action: roles:write scopes: permissions:type:delegate)');
    expect(permission('users:create').describe()).toBe('action: users:create');
  });
});

describe('delegation coverage', () => {
  const cases: { held: [string, string][]; wanted: [string, string]; covered: boolean; why: string }[] = [
    { held: [['users:read', 'users:*']], wanted: ['users:read', 'users:id:1'], covered: true, why: 'wildcard covers an id' },
    { held: [['users:read', 'users:id:*']], wanted: ['users:read', 'users:*'], covered: false, why: 'users:* is broader than users:id:*' },
    { held: [['users:read', 'users:*']], wanted: ['users:read', 'users:*'], covered: true, why: 'equal wildcard' },
    { held: [['users:read', '*']], wanted: ['users:read', 'users:*'], covered: true, why: '* covers all' },
    { held: [['users:read', 'users:*']], wanted: ['users:write', 'users:*'], covered: false, why: 'other action' },
    { held: [['users:create', '']], wanted: ['users:create', ''], covered: true, why: 'scopeless needs the action' },
    { held: [['users:create', 'x:y']], wanted: ['users:create', ''], covered: true, why: 'scopeless grants only unscoped checks' },
    { held: [['users:create', '']], wanted: ['users:create', 'users:id:1'], covered: false, why: 'no scope does not cover a scope' },
    { held: [], wanted: ['a:b', ''], covered: false, why: 'nothing held' },
  ];
  it.each(cases)('$wanted covered=$covered ($why)', ({ held, wanted, covered }) => {
    const [action, scope] = wanted;
    expect(idx(...held).covers({ action, scope })).toBe(covered);
    expect(idx(...held).uncovered([{ action, scope }])).toHaveLength(covered ? 0 : 1);
  });
});

describe('index views', () => {
  it('shares one deeply frozen pairs list and scope map per index, equal to the copies', () => {
    const held = idx(['b:x', 'y:*'], ['a:x', '']);
    expect(held.pairs()).toBe(held.pairs());
    expect(held.scopeMap()).toBe(held.scopeMap());
    expect(held.pairs()).toEqual(held.list());
    expect(held.scopeMap()).toEqual(held.toScopeMap());
    const frozen = [held.pairs(), ...held.pairs(), held.scopeMap(), ...Object.values(held.scopeMap())].map(Object.isFrozen);
    expect(frozen.every(Boolean)).toBe(true);
    // The copies are the callers' own to change.
    expect([Object.isFrozen(held.list()), Object.isFrozen(held.toScopeMap()), Object.isFrozen(held.toScopeMap()['a:x'])]).toEqual([
      false,
      false,
      false,
    ]);
  });

  it('lists and maps permissions sorted and deduplicated', () => {
    const held = idx(['b:x', 'y:*'], ['a:x', ''], ['b:x', '*'], ['b:x', 'y:*'], ['b:x', 'y:id:1']);
    expect(held.size).toBe(4);
    expect(held.toScopeMap()).toEqual({ 'a:x': [''], 'b:x': ['*', 'y:*', 'y:id:1'] });
    expect(held.list()).toEqual([
      { action: 'a:x', scope: '' },
      { action: 'b:x', scope: '*' },
      { action: 'b:x', scope: 'y:*' },
      { action: 'b:x', scope: 'y:id:1' },
    ]);
  });
});

describe('syntax', () => {
  it.each([
    ['', null],
    ['*', null],
    ['users:*', null],
    ['users:id:*', null],
    ['users:id:7', null],
    ['permissions:type:delegate', null],
    ['users*', 'invalid'],
    ['users:*:id', 'invalid'],
    ['us*ers:id', 'invalid'],
    ['users', 'invalid'],
    ['users::1', 'invalid'],
    ['users:id:?', 'invalid'],
    ['users:id: 1', 'invalid'],
  ])('scope %j', (scope, expected) => {
    expect(scopeProblem(scope) === null ? null : 'invalid').toBe(expected);
  });
  it.each([
    ['roles:write', true],
    ['users.roles:add', true],
    ['a:b:c', true],
    ['roles', false],
    ['roles:', false],
    [':write', false],
    ['roles:wr ite', false],
    ['', false],
  ])('action %j valid=%s', (action, valid) => {
    expect(actionProblem(action) === null).toBe(valid);
  });
});
