import { describe, expect, it } from 'vitest';
import { announcedUsers, MAX_CATCH_UP, type RecordReach, reachOf } from './change-reach.js';

const record = (kinds: string[], users: number[]): RecordReach => ({ kinds: JSON.stringify(kinds), users: JSON.stringify(users) });
const assign = (...users: number[]) => record(['user_role.add'], users);

describe('reachOf: what the change records of a gap reach', () => {
  it.each([
    ['no step, no record', [], 0, []],
    ['role assignments, one record per step', [assign(3), record(['user_role.remove', 'user_role.add'], [4, 3])], 2, [3, 4]],
    ['an assignment window reached', [record(['user_role.start'], [7])], 1, [7]],
    ['a step without its record', [assign(3)], 2, undefined],
    ['a step and no record', [], 1, undefined],
    ['a change of another kind', [assign(3), record(['role.update'], [])], 2, undefined],
    ['an assignment mixed with another change', [record(['user_role.add', 'team_member.add'], [3])], 1, undefined],
    ['a team assignment (its members, read as they are)', [record(['team_role.add'], [])], 1, undefined],
    ['an assignment naming nobody', [record(['user_role.add'], [])], 1, undefined],
    ['malformed JSON', [{ kinds: 'user_role.add', users: '[3]' }], 1, undefined],
  ] as const)('%s', (_name, records, steps, expected) => {
    const reach = reachOf(records, steps);
    expect(reach === undefined ? undefined : [...reach].sort()).toEqual(expected === undefined ? undefined : [...expected]);
  });

  it(`counts more than ${MAX_CATCH_UP} records as a change to everyone`, () => {
    const many = Array.from({ length: MAX_CATCH_UP + 1 }, (_, i) => assign(i + 1));
    expect(reachOf(many, many.length)).toBeUndefined();
    expect(reachOf(many.slice(1), MAX_CATCH_UP)).toHaveLength(MAX_CATCH_UP);
  });
});

describe('announcedUsers: the users a notification names', () => {
  it.each([
    ['12:users=3,4', [3, 4]],
    ['12', undefined],
    ['12:users=', undefined],
    ['12:users=0', undefined],
    ['x:users=3', undefined],
  ] as const)('%s', (payload, expected) => {
    expect(announcedUsers(payload)).toEqual(expected);
  });
});
