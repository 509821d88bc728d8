/**
 * Table tests of planSet, the arithmetic of "set roles" (service-interface.md "Set roles of ...";
 * Grafana's SetUserRoles): what to add and what to remove so the subject holds exactly the wanted
 * roles, leaving hidden assignments alone unless `includeHidden`. The request-level tests
 * (test/assignments/user-roles-set.test.ts, team-roles.test.ts) prove the doors, delegation on
 * each change and the organization wall.
 */
import { describe, expect, it } from 'vitest';
import { planSet } from './plan-set.js';

type R = { id: number; hidden: boolean };
const role = (id: number, hidden = false): R => ({ id, hidden });
const ids = (roles: R[]) => roles.map((r) => r.id);

describe('planSet', () => {
  const cases: { name: string; current: R[]; wanted: R[]; includeHidden: boolean; add: number[]; remove: number[] }[] = [
    { name: 'nothing held, nothing wanted', current: [], wanted: [], includeHidden: false, add: [], remove: [] },
    { name: 'all new', current: [], wanted: [role(1), role(2)], includeHidden: false, add: [1, 2], remove: [] },
    { name: 'already exactly held', current: [role(1), role(2)], wanted: [role(2), role(1)], includeHidden: false, add: [], remove: [] },
    {
      name: 'empty set removes every visible role',
      current: [role(1), role(2)],
      wanted: [],
      includeHidden: false,
      add: [],
      remove: [1, 2],
    },
    { name: 'swap one', current: [role(1), role(2)], wanted: [role(2), role(3)], includeHidden: false, add: [3], remove: [1] },
    {
      name: 'a hidden role stays without includeHidden',
      current: [role(1), role(9, true)],
      wanted: [],
      includeHidden: false,
      add: [],
      remove: [1],
    },
    {
      name: 'a hidden role goes with includeHidden',
      current: [role(1), role(9, true)],
      wanted: [],
      includeHidden: true,
      add: [],
      remove: [1, 9],
    },
    {
      name: 'a hidden role asked for by uid is added either way',
      current: [],
      wanted: [role(9, true)],
      includeHidden: false,
      add: [9],
      remove: [],
    },
    {
      name: 'a hidden role held and wanted: no change',
      current: [role(9, true)],
      wanted: [role(9, true)],
      includeHidden: true,
      add: [],
      remove: [],
    },
    {
      name: 'only hidden roles held, set to visible ones',
      current: [role(8, true), role(9, true)],
      wanted: [role(1)],
      includeHidden: false,
      add: [1],
      remove: [],
    },
  ];
  it.each(cases)('$name -> add $add, remove $remove', ({ current, wanted, includeHidden, add, remove }) => {
    const plan = planSet(current, wanted, includeHidden);
    expect(ids(plan.add)).toEqual(add);
    expect(ids(plan.remove)).toEqual(remove);
  });

  it('answers the given role objects, in their order', () => {
    const wanted = [role(3), role(1)];
    const current = [role(2), role(4)];
    const plan = planSet(current, wanted, false);
    expect(plan.add[0]).toBe(wanted[0]);
    expect(plan.add[1]).toBe(wanted[1]);
    expect(plan.remove).toEqual([current[0], current[1]]);
  });

  it('after applying the plan the subject holds the wanted roles plus the hidden ones kept', () => {
    const current = [role(1), role(2), role(8, true), role(9, true)];
    const wanted = [role(2), role(3), role(9, true)];
    for (const includeHidden of [false, true]) {
      const plan = planSet(current, wanted, includeHidden);
      const removed = new Set(ids(plan.remove));
      const after = [...ids(current).filter((id) => !removed.has(id)), ...ids(plan.add)].sort();
      expect(after).toEqual(includeHidden ? [2, 3, 9] : [2, 3, 8, 9]);
    }
  });
});
