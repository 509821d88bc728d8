/** heldAt (held-roles.ts): which holds count at a moment, each role's end, and the next change. */
import { describe, expect, it } from 'vitest';
import { heldAt, type RoleHold } from './held-roles.js';

const NOW = Date.parse('2026-11-28T12:00:00Z');
const at = (s: number) => new Date(NOW + s * 1000);
const hold = (roleId: number, notBefore: Date | null, expiresAt: Date | null): RoleHold => ({ roleId, notBefore, expiresAt });

describe('heldAt', () => {
  const table: { name: string; holds: RoleHold[]; roles: number[]; ends: [number, number][]; changesAt: number | null }[] = [
    {
      name: 'basic grants and assignments for good',
      holds: [hold(1, null, null), hold(2, null, null)],
      roles: [1, 2],
      ends: [],
      changesAt: null,
    },
    { name: 'an assignment until later', holds: [hold(1, null, at(10))], roles: [1], ends: [[1, NOW + 10_000]], changesAt: NOW + 10_000 },
    { name: 'refused from the very instant it ends', holds: [hold(1, null, at(0))], roles: [], ends: [], changesAt: null },
    {
      name: 'held from the very instant it starts',
      holds: [hold(1, at(0), at(5))],
      roles: [1],
      ends: [[1, NOW + 5000]],
      changesAt: NOW + 5000,
    },
    {
      name: 'a pending assignment: not held, its start is the next change',
      holds: [hold(1, at(3), at(9))],
      roles: [],
      ends: [],
      changesAt: NOW + 3000,
    },
    {
      name: 'held for good another way: no end',
      holds: [hold(1, null, at(10)), hold(1, null, null)],
      roles: [1],
      ends: [],
      changesAt: NOW + 10_000,
    },
    {
      name: 'two ending holds: the later end',
      holds: [hold(1, null, at(10)), hold(1, null, at(20))],
      roles: [1],
      ends: [[1, NOW + 20_000]],
      changesAt: NOW + 10_000,
    },
    { name: 'a lapsed hold: nothing, no change ahead', holds: [hold(1, at(-20), at(-10))], roles: [], ends: [], changesAt: null },
  ];
  it.each(table)('$name', ({ holds, roles, ends, changesAt }) => {
    const answer = heldAt(holds, NOW);
    expect(answer.roleIds.sort()).toEqual(roles);
    expect([...answer.ends]).toEqual(ends);
    expect(answer.changesAt).toBe(changesAt);
  });
});
