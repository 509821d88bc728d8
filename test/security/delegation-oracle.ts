/**
 * The independent oracle and the generator of the delegation property test
 * (delegation-property.test.ts). The oracle is written from the documented rules (README
 * "Escalation", upstream-behaviour.md "Scope match" and "Delegation", Grafana's org-role
 * ceiling), naively, pair by pair; it shares no code with the kernel's PermissionIndex or
 * delegation.ts. Only the basic roles' default contents are read from the seed's data.
 */
import fc from 'fast-check';
import { BASIC_ROLES } from '../../src/kernel/builtin-roles.js';
import type { PermissionPair } from '../../src/kernel/catalogue.js';

export type Role = 'None' | 'Viewer' | 'Editor' | 'Admin';
export type PathKind = 'assign' | 'team' | 'orgRole' | 'saRole' | 'token' | 'apiKey' | 'credential';
export type CredentialOp = 'disable' | 'profile' | 'logout' | 'password';

/** One generated case: a caller (org role + custom permissions), a path, and what it would give. */
export interface Draw {
  path: PathKind;
  callerRole: Role;
  held: PermissionPair[];
  /** The org role given (orgRole, saRole, apiKey), held by the account (token, credential). */
  targetRole: Exclude<Role, 'None'>;
  /** The role assigned (assign), of the team (team), of the account (token, credential). */
  payload: PermissionPair[];
  /** credential: the target is a Service Admin. */
  targetServiceAdmin: boolean;
  op: CredentialOp;
  /** The caller holds `held` only until a moment T (a time-bound assignment), not for good. */
  heldEnds: boolean;
  /** assign: the assignment ends a minute before T, a minute after T, or never; other paths give for good. */
  grantEnd: 'none' | 'before' | 'after';
}

const ESCALATE = 'permissions:type:escalate';
const DELEGATE = 'permissions:type:delegate';
const ORDER: Role[] = ['None', 'Viewer', 'Editor', 'Admin'];

/** Default permissions of each org role's basic role (inheritance expanded), as seeded. */
export const BASIC: Record<Role, PermissionPair[]> = {
  None: [],
  Viewer: basicOf('Viewer'),
  Editor: basicOf('Editor'),
  Admin: basicOf('Admin'),
};
function basicOf(role: string): PermissionPair[] {
  return (BASIC_ROLES.find((r) => r.basicRole === role)?.permissions ?? []).map(({ action, scope }) => ({ action, scope }));
}

/** Held scope vs wanted scope: `*`-suffix is a prefix match, "" matches nothing, else equality. */
export function scopeMatches(held: string, wanted: string): boolean {
  if (held === '') return false;
  if (held.endsWith('*')) return wanted.startsWith(held.slice(0, -1));
  return held === wanted;
}

/** Does `held` pass a check of `action` on one of `targets` (any scope when none)? */
function passes(held: PermissionPair[], action: string, targets: string[]): boolean {
  return held.some((h) => h.action === action && (targets.length === 0 || targets.some((t) => scopeMatches(h.scope, t))));
}

/** Delegation: every wanted permission has a held one with its action and a matching scope (any, for a scopeless one). */
export function covers(held: PermissionPair[], wanted: PermissionPair[]): boolean {
  return wanted.every((w) => held.some((h) => h.action === w.action && (w.scope === '' || scopeMatches(h.scope, w.scope))));
}

/** users.roles:add held on a scope covering permissions:type:escalate. */
function exempt(held: PermissionPair[]): boolean {
  return passes(held, 'users.roles:add', [ESCALATE]);
}

const atLeast = (own: Role, given: Role) => ORDER.indexOf(own) >= ORDER.indexOf(given);

/** Ids the requirement scopes name. */
export interface Ids {
  target: number;
  team: number;
  account: number;
}

/** The oracle: may a (non Service Admin) caller make `d`? */
export function expected(d: Draw, ids: Ids): 'accepted' | 'refused' {
  const held = [...d.held, ...BASIC[d.callerRole]];
  // Delegation in time: what the caller holds until T covers only a grant that ends by T.
  const endsByT = d.path === 'assign' && d.grantEnd === 'before';
  const lasting = d.heldEnds && !endsByT ? BASIC[d.callerRole] : held;
  const grants = (wanted: PermissionPair[]) => exempt(held) || covers(lasting, wanted);
  const ceiling = atLeast(d.callerRole, d.targetRole);
  const sa = `serviceaccounts:id:${ids.account}`;
  const ok = (() => {
    switch (d.path) {
      case 'assign':
        return passes(held, 'users.roles:add', [DELEGATE, ESCALATE]) && grants(d.payload);
      case 'team':
        return (
          (passes(held, 'teams:write', [`teams:id:${ids.team}`]) || passes(held, 'teams.permissions:write', [`teams:id:${ids.team}`])) &&
          grants(d.payload)
        );
      case 'orgRole':
        return passes(held, 'org.users:write', [`users:id:${ids.target}`]) && ceiling && grants(BASIC[d.targetRole]);
      case 'saRole':
        return passes(held, 'serviceaccounts:write', [sa]) && ceiling && grants(BASIC[d.targetRole]);
      case 'token':
        return passes(held, 'serviceaccounts:write', [sa]) && ceiling && grants([...BASIC[d.targetRole], ...d.payload]);
      case 'apiKey':
        return passes(held, 'apikey:create', []) && ceiling && grants(BASIC[d.targetRole]);
      case 'credential': {
        const action = { disable: 'users:disable', profile: 'users:write', logout: 'users:write', password: 'users.password:write' }[d.op];
        const account = [...BASIC[d.targetRole], ...d.payload];
        return passes(held, action, [`global.users:id:${ids.target}`]) && !d.targetServiceAdmin && ceiling && grants(account);
      }
    }
  })();
  return ok ? 'accepted' : 'refused';
}

// ---- the generator ---------------------------------------------------------------------------------

const REQUIREMENTS: [string, string[]][] = [
  ['users.roles:add', [DELEGATE, ESCALATE, 'permissions:type:*', '*']],
  ['teams:write', ['teams:*', 'teams:id:*']],
  ['teams.permissions:write', ['teams:*']],
  ['org.users:write', ['users:*', 'users:id:*']],
  ['serviceaccounts:write', ['serviceaccounts:*']],
  ['apikey:create', ['']],
  ['users:disable', ['global.users:*']],
  ['users:write', ['global.users:*', 'global.users:id:*']],
  ['users.password:write', ['global.users:*']],
];
/** What roles carry: a product's actions, and some of the basic roles' own. */
const PAYLOAD: [string, string[]][] = [
  ['x:read', ['x:*', 'x:id:1', '*']],
  ['x:write', ['x:*', 'x:id:1']],
  ['teams:read', ['teams:*']],
  ['org.users:read', ['users:*']],
  ['serviceaccounts:read', ['serviceaccounts:*']],
  ['users:write', ['global.users:*']],
];
const perm = (table: [string, string[]][]) =>
  fc.constantFrom(...table).chain(([action, scopes]) => fc.constantFrom(...scopes).map((scope) => ({ action, scope })));

/** The permission a path's caller needs before delegation is even asked (scoped wide). */
function requirementOf(path: PathKind, op: CredentialOp): PermissionPair {
  const credential = { disable: 'users:disable', profile: 'users:write', logout: 'users:write', password: 'users.password:write' }[op];
  const table: Record<PathKind, [string, string]> = {
    assign: ['users.roles:add', DELEGATE],
    team: ['teams:write', 'teams:*'],
    orgRole: ['org.users:write', 'users:*'],
    saRole: ['serviceaccounts:write', 'serviceaccounts:*'],
    token: ['serviceaccounts:write', 'serviceaccounts:*'],
    apiKey: ['apikey:create', ''],
    credential: [credential, 'global.users:*'],
  };
  const [action, scope] = table[path];
  return { action, scope };
}

/**
 * Random draws: every path, caller org roles of every kind, about one target in ten a Service
 * Admin; four callers in five also hold the path's own permission, so most draws reach the
 * delegation question; one caller in four holds its custom role only for a while, and half the
 * assignments end (before or after the caller's hold does).
 */
export const draws: fc.Arbitrary<Draw> = fc
  .record({
    path: fc.constantFrom<PathKind>('assign', 'team', 'orgRole', 'saRole', 'token', 'apiKey', 'credential'),
    callerRole: fc.constantFrom<Role>('None', 'Viewer', 'Editor', 'Admin'),
    held: fc.array(fc.oneof({ arbitrary: perm(REQUIREMENTS), weight: 2 }, { arbitrary: perm(PAYLOAD), weight: 3 }), { maxLength: 6 }),
    targetRole: fc.constantFrom<Exclude<Role, 'None'>>('Viewer', 'Editor', 'Admin'),
    payload: fc.array(perm(PAYLOAD), { maxLength: 3 }),
    targetServiceAdmin: fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
    op: fc.constantFrom<CredentialOp>('disable', 'profile', 'logout', 'disable', 'profile', 'password'),
    needed: fc.integer({ min: 0, max: 4 }).map((n) => n > 0),
    heldEnds: fc.integer({ min: 0, max: 3 }).map((n) => n === 0),
    grantEnd: fc.constantFrom<Draw['grantEnd']>('none', 'none', 'before', 'after'),
  })
  .map(({ needed, ...d }) => (needed ? { ...d, held: [...d.held, requirementOf(d.path, d.op)] } : d))
  // A caller holding for a while holds what it would give, so that time alone decides.
  .map((d) => (d.heldEnds ? { ...d, held: [...d.held, ...d.payload] } : d));
