import { describe, expect, it } from 'vitest';
import type { PermissionPair } from '../../kernel/catalogue.js';
import { differenceBetween, differenceOf, holdingOf, type Picture, type Subject } from './picture.js';

const p = (action: string, scope = ''): PermissionPair => ({ action, scope });

/** A picture of one user holding `held` (role ids) with role permissions `roles`. */
function pictureOf(roles: Record<number, PermissionPair[]>, held: number[]): { picture: Picture; subject: Subject } {
  const subject: Subject = {
    key: 'u:1',
    kind: 'user',
    id: 1,
    login: 'one',
    orgRole: 'None',
    isServiceAdmin: false,
    orgRoles: new Set(held),
    globalRoles: new Set(),
    teams: new Set(),
  };
  const permissions = new Map(Object.entries(roles).map(([id, pairs]) => [Number(id), pairs]));
  return {
    picture: {
      orgId: 1,
      subjects: new Map([[subject.key, subject]]),
      teamRoles: new Map(),
      basicGrants: new Map(),
      permissions,
      adminPeople: new Set(),
    },
    subject,
  };
}

describe('differenceBetween reads only the roles that can differ, and answers as differenceOf', () => {
  const cases: {
    name: string;
    before: Record<number, PermissionPair[]>;
    held: number[];
    after: Record<number, PermissionPair[]>;
    heldAfter: number[];
  }[] = [
    {
      name: 'a role added',
      before: { 1: [p('a:read', 'a:*')] },
      held: [1],
      after: { 1: [p('a:read', 'a:*')], 2: [p('b:read')] },
      heldAfter: [1, 2],
    },
    {
      name: 'a role removed',
      before: { 1: [p('a:read', 'a:*')], 2: [p('b:read')] },
      held: [1, 2],
      after: { 1: [p('a:read', 'a:*')], 2: [p('b:read')] },
      heldAfter: [1],
    },
    {
      name: 'gained but already covered by a wildcard',
      before: { 1: [p('a:read', 'a:*')], 2: [] },
      held: [1, 2],
      after: { 1: [p('a:read', 'a:*')], 2: [p('a:read', 'a:id:1')] },
      heldAfter: [1, 2],
    },
    {
      name: 'a wildcard replaced by one id',
      before: { 1: [p('a:read', 'a:*')] },
      held: [1],
      after: { 1: [p('a:read', 'a:id:1')] },
      heldAfter: [1],
    },
    {
      name: 'kept through another role',
      before: { 1: [p('a:read', 'a:id:1')], 2: [p('a:read', 'a:id:1')] },
      held: [1, 2],
      after: { 1: [], 2: [p('a:read', 'a:id:1')] },
      heldAfter: [1, 2],
    },
    {
      name: 'a scopeless pair against a scoped one',
      before: { 1: [p('a:read', 'a:id:1')] },
      held: [1],
      after: { 1: [p('a:read')] },
      heldAfter: [1],
    },
  ];
  it.each(cases)('$name', ({ before, held, after, heldAfter }) => {
    const first = pictureOf(before, held);
    const last = pictureOf(after, heldAfter);
    // Unchanged roles share their arrays, as the simulation's copy of the picture does.
    for (const [id, pairs] of first.picture.permissions) {
      if (JSON.stringify(last.picture.permissions.get(id)) === JSON.stringify(pairs)) last.picture.permissions.set(id, pairs);
    }
    const a = holdingOf(first.picture, first.subject);
    const b = holdingOf(last.picture, last.subject);
    const expected = differenceOf(a.index, b.index);
    expect(differenceBetween(a, b, first.picture.permissions, last.picture.permissions)).toEqual({
      gained: expected.gained.map((x) => ({ ...x })),
      lost: expected.lost.map((x) => ({ ...x })),
    });
  });
});
