/**
 * The in-memory picture a simulation works on: the subjects a set of proposed changes can reach
 * in one organization, with what makes each hold its roles, and the permissions of those roles.
 * Holding follows kernel/held-roles.ts (upstream-behaviour.md "Permission evaluation"): the basic
 * role of the subject's org role and, for a Service Admin, `basic:service_admin` (basicRolesOf),
 * with every role granted to them there or globally; roles assigned to the subject there or
 * globally; the roles of its teams there. An API key holds its basic role's grants only.
 *
 * The picture is copied (`clonePicture`) and the changes are applied to the copy (model.ts), so
 * "before" and "after" are computed by the same function (`indexOf`) with the kernel's evaluator
 * (PermissionIndex). Nothing here writes, and the access service's caches are not consulted.
 */
import type { PermissionPair } from '../../kernel/catalogue.js';
import { PermissionIndex } from '../../kernel/evaluator.js';
import { basicRolesOf } from '../../kernel/held-roles.js';
import type { BasicRoleName, OrgRole } from '../../kernel/principal.js';

/** A subject of the picture: a user or service account (a member of the organization), or an API key of it. */
export interface Subject {
  /** `u:<userId>` for users and service accounts, `k:<keyId>` for API keys. */
  key: string;
  kind: 'user' | 'serviceAccount' | 'apiKey';
  id: number;
  /** The login, or an API key's name. */
  login: string;
  orgRole: OrgRole;
  isServiceAdmin: boolean;
  /** Roles assigned to it in the organization (UserRole orgId = the organization's). */
  orgRoles: Set<number>;
  /** Roles assigned to it globally (UserRole orgId 0). */
  globalRoles: Set<number>;
  /** Its teams in the organization. */
  teams: Set<number>;
}

/** What the picture holds (module comment). */
export interface Picture {
  orgId: number;
  /** By `Subject.key`. */
  subjects: Map<string, Subject>;
  /** The roles of teams of the organization, by team id (the teams of its subjects and those a change names). */
  teamRoles: Map<number, Set<number>>;
  /** Roles granted to each basic role in the organization or globally. */
  basicGrants: Map<BasicRoleName, Set<number>>;
  /**
   * The permissions of every role the picture names, by role id: whole for the roles a change
   * names, brings or takes away; for the others only those with an action the former carry (the
   * only ones a difference can be made of or covered by: load.ts).
   */
  permissions: Map<number, readonly PermissionPair[]>;
  /** Ids of the organization's Admin people (not service accounts): the last Admin stays (Grafana). */
  adminPeople: Set<number>;
}

/** The key of a user or service account in the picture. */
export const userKey = (id: number): string => `u:${id}`;
/** The key of an API key in the picture. */
export const keyKey = (id: number): string => `k:${id}`;

/** A copy whose sets and maps may be changed without touching `picture`. */
export function clonePicture(picture: Picture): Picture {
  const subjects = new Map<string, Subject>();
  for (const [key, s] of picture.subjects) {
    subjects.set(key, { ...s, orgRoles: new Set(s.orgRoles), globalRoles: new Set(s.globalRoles), teams: new Set(s.teams) });
  }
  return {
    orgId: picture.orgId,
    subjects,
    teamRoles: new Map([...picture.teamRoles].map(([id, roles]) => [id, new Set(roles)])),
    basicGrants: new Map([...picture.basicGrants].map(([name, roles]) => [name, new Set(roles)])),
    permissions: new Map(picture.permissions),
    adminPeople: new Set(picture.adminPeople),
  };
}

/** The ids of the roles `subject` holds in the picture (module comment; kernel/held-roles.ts heldRoleIds). */
export function heldRoleIdsOf(picture: Picture, subject: Subject): Set<number> {
  const held = new Set<number>();
  for (const basic of basicRolesOf(subject)) {
    for (const id of picture.basicGrants.get(basic) ?? []) held.add(id);
  }
  if (subject.kind === 'apiKey') return held;
  for (const id of subject.orgRoles) held.add(id);
  for (const id of subject.globalRoles) held.add(id);
  for (const team of subject.teams) for (const id of picture.teamRoles.get(team) ?? []) held.add(id);
  return held;
}

/** What `subject` holds in the picture: its roles' ids and its effective permissions as the kernel's index. */
export interface Holding {
  held: Set<number>;
  index: PermissionIndex;
}

/** The roles and effective permissions of `subject` in the picture (Holding). */
export function holdingOf(picture: Picture, subject: Subject): Holding {
  const held = heldRoleIdsOf(picture, subject);
  const pairs: PermissionPair[] = [];
  for (const id of held) for (const pair of picture.permissions.get(id) ?? []) pairs.push(pair);
  return { held, index: PermissionIndex.from(pairs) };
}

/** The permissions team `teamId` gives its members in the picture (delegation's Gain of joining it). */
export function teamPermissions(picture: Picture, teamId: number): PermissionPair[] {
  return [...(picture.teamRoles.get(teamId) ?? [])].flatMap((id) => [...(picture.permissions.get(id) ?? [])]);
}

/** The permissions org role `role` gives in the picture (delegation's Gain of an org role). */
export function orgRolePermissions(picture: Picture, role: OrgRole): PermissionPair[] {
  if (role === 'None') return [];
  return [...(picture.basicGrants.get(role) ?? [])].flatMap((id) => [...(picture.permissions.get(id) ?? [])]);
}

/**
 * What `after` gives that `before` does not, and what it takes away, in the kernel's terms: a
 * pair of `after` is gained when `before` does not cover it (PermissionIndex.covers: an equal
 * scope or a wildcard over it), lost when a pair of `before` is not covered by `after`. Pairs
 * sorted by action, then scope.
 */
export function differenceOf(
  before: PermissionIndex,
  after: PermissionIndex,
): { gained: Readonly<PermissionPair>[]; lost: Readonly<PermissionPair>[] } {
  return {
    gained: after.pairs().filter((p) => !before.covers(p)),
    lost: before.pairs().filter((p) => !after.covers(p)),
  };
}

const byActionThenScope = (a: PermissionPair, b: PermissionPair): number =>
  a.action < b.action ? -1 : a.action > b.action ? 1 : a.scope < b.scope ? -1 : a.scope > b.scope ? 1 : 0;

/** `pairs` without repeats, sorted by action then scope (PermissionIndex.pairs' order). */
function distinctSorted(pairs: Iterable<PermissionPair>): PermissionPair[] {
  const seen = new Map<string, PermissionPair>();
  for (const p of pairs) seen.set(`${p.action}\u0000${p.scope}`, p);
  return [...seen.values()].sort(byActionThenScope);
}

/**
 * differenceOf from `first` to `last` of one subject, reading only the permissions that can
 * differ: a pair held in a state is covered by that state's index, so a pair gained comes from a
 * role `last` holds that `first` did not, or whose permissions changed (`changed`), and a pair
 * lost from a role `first` held that `last` does not, or that changed. `before` and `after` are
 * the two pictures' permissions by role. The same answer as differenceOf(first.index,
 * last.index), without listing and sorting every pair of both (thousands of subjects per
 * simulation).
 */
export function differenceBetween(
  first: Holding,
  last: Holding,
  before: Picture['permissions'],
  after: Picture['permissions'],
): { gained: PermissionPair[]; lost: PermissionPair[] } {
  const changed = (id: number) => before.get(id) !== after.get(id);
  const gainedFrom: PermissionPair[] = [];
  for (const id of last.held) if (!first.held.has(id) || changed(id)) gainedFrom.push(...(after.get(id) ?? []));
  const lostFrom: PermissionPair[] = [];
  for (const id of first.held) if (!last.held.has(id) || changed(id)) lostFrom.push(...(before.get(id) ?? []));
  return {
    gained: distinctSorted(gainedFrom).filter((p) => !first.index.covers(p)),
    lost: distinctSorted(lostFrom).filter((p) => !last.index.covers(p)),
  };
}
