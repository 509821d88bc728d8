/**
 * Permission listings: the caller's own effective permissions and roles, and those of a user or
 * service account of the caller's organization. Effective permissions come from the access
 * service (kernel/access.ts), so these listings and every check agree by construction.
 *
 * Rules: service-interface.md "List own permissions", "List permissions of a user or service
 * account", "Required permissions"; upstream-behaviour.md "Permission evaluation".
 */
import type { Role } from '../../generated/prisma/client.js';
import { Action, type PermissionPair, Scope } from '../../kernel/catalogue.js';
import { PermissionIndex, permission } from '../../kernel/evaluator.js';
import type { FeatureDeps } from '../../kernel/feature-deps.js';
import { type AccessGrant, allowedUntil, grantsOf } from '../../kernel/grants.js';
import { requireSignedIn } from '../../kernel/guards.js';
import { parseId, parseInput, wholeNumberText } from '../../kernel/inputs.js';
import { type Principal, principalOf, type SignedInPrincipal } from '../../kernel/principal.js';
import { requirement } from '../../kernel/requirements.js';
import type { RoleQuery } from '../roles/service.js';
import { type BatchCheck, BatchChecks } from './batch.js';
import type { AccessCheck } from './explain.js';
import { checkInput, permissionSearchInput } from './inputs.js';
import { type Member, Members } from './members.js';

/** What the listings need (service-interface.md "Required permissions"). */
export const permissionRequirements = {
  readUser: requirement(['userId'], ({ userId }) => permission(Action.UsersPermissionsRead, Scope.user(userId))),
  /** Grafana's permission search: every member's permissions. */
  search: requirement([], () => permission(Action.UsersPermissionsRead, Scope.UsersAll)),
  /** A check of another user; checking oneself needs nothing. */
  checkUser: requirement(
    ['userId'],
    ({ userId }) => permission(Action.UsersPermissionsRead, Scope.user(userId)),
    'only to check another user; checking oneself needs any credentials',
  ),
};

/** `{"<userId>": {"<action>": ["<scope>", ...]}}`, the answer of the permission search. */
export type PermissionSearchResult = Record<string, Record<string, string[]>>;

export class PermissionService {
  private readonly members: Members;

  private readonly batch: BatchChecks;

  constructor(private readonly deps: FeatureDeps) {
    this.members = new Members(deps);
    this.batch = new BatchChecks(deps, {
      member: (caller, userId) => this.member(caller, userId),
      otherUser: (caller, rawItem) => {
        const other = otherUserOf(caller, rawItem);
        return other === null ? null : permissionRequirements.checkUser.for({ userId: other });
      },
    });
  }

  /** A user or service account of the caller's organization as a principal acting there, and whether it is disabled (members.ts). */
  private member(caller: SignedInPrincipal, userId: number): Promise<Member> {
    return this.members.of(caller, userId);
  }

  /**
   * The caller's effective permissions as a map action -> sorted scopes (GET
   * /api/access-control/user/permissions). `reloadCache` drops the caller's cached index first,
   * so the answer is read from the database. Needs only credentials. The map is the cached
   * index's own, frozen (PermissionIndex.scopeMap): the same object while the index is cached.
   * @throws DomainError UNAUTHENTICATED (401), 404 in oss.
   */
  async own(caller: Principal, options: { reloadCache?: boolean | null }): Promise<Readonly<Record<string, readonly string[]>>> {
    this.deps.edition.assertAvailable();
    requireSignedIn(caller);
    if (options.reloadCache) this.deps.access.invalidatePrincipal(caller);
    return (await this.deps.access.permissionsOf(caller)).scopeMap();
  }

  /**
   * The caller's effective permissions as `{action, scope}` pairs sorted by action then scope
   * (GraphQL `viewer.permissions`). Needs only credentials.
   * @throws DomainError UNAUTHENTICATED (401), 404 in oss.
   */
  async ownList(caller: Principal): Promise<PermissionPair[]> {
    this.deps.edition.assertAvailable();
    requireSignedIn(caller);
    return (await this.deps.access.permissionsOf(caller)).list();
  }

  /**
   * Every role behind the caller's permissions: basic, direct (org and global) and its teams'
   * roles (GraphQL `viewer.roles`). Needs only credentials.
   * @throws DomainError UNAUTHENTICATED (401), 404 in oss.
   */
  async ownRoles(caller: Principal, query: RoleQuery = {}): Promise<Role[]> {
    this.deps.edition.assertAvailable();
    requireSignedIn(caller);
    return this.deps.access.heldRoles(caller, query);
  }

  /**
   * Effective permissions of a user or service account in the caller's organization, as sorted
   * `{action, scope}` pairs: its direct roles there and global ones, its teams' roles there, the
   * basic role of its org role there, and basic:service_admin for a Service Admin; none while its
   * account is disabled (its credentials are refused, so it may do nothing). Needs
   * users.permissions:read on users:id:<userId>. The list is the cached index's own, frozen
   * (PermissionIndex.pairs): the same array while the index is cached.
   * @throws DomainError VALIDATION_FAILED (400: userId), 401, ACCESS_DENIED (403),
   *   USER_NOT_FOUND (404: not a member of the caller's organization), 404 in oss.
   */
  async ofUser(caller: Principal, userId: unknown): Promise<readonly Readonly<PermissionPair>[]> {
    this.deps.edition.assertAvailable();
    requireSignedIn(caller);
    const id = parseId('userId', userId);
    await this.deps.access.check(caller, permissionRequirements.readUser.for({ userId: id }));
    const member = await this.member(caller, id);
    if (member.disabled) return [];
    return (await this.deps.access.permissionsOf(member.principal)).pairs();
  }

  /**
   * GraphQL `userPermissionSources` (the console's effective permissions): every permission of a
   * user or service account in the caller's organization with the role that grants it and how
   * that role reaches it (`direct`, `team:<name>`, `basic:<role>`, `service-admin`), sorted by
   * action, scope, then role name. The same roles the evaluator loads (kernel/grants.ts), so the
   * listing agrees with `ofUser` (none for a disabled account). Needs users.permissions:read on
   * users:id:<userId>.
   * @throws DomainError as `ofUser`.
   */
  async sourcesOfUser(caller: Principal, userId: unknown): Promise<AccessGrant[]> {
    this.deps.edition.assertAvailable();
    requireSignedIn(caller);
    const id = parseId('userId', userId);
    await this.deps.access.check(caller, permissionRequirements.readUser.for({ userId: id }));
    const member = await this.member(caller, id);
    if (member.disabled) return [];
    const grants = await grantsOf(this.deps.access, member.principal, null, [], this.deps.clock.now());
    return grants.sort(
      (a, b) =>
        a.permission.action.localeCompare(b.permission.action) ||
        a.permission.scope.localeCompare(b.permission.scope) ||
        a.role.name.localeCompare(b.role.name) ||
        a.source.localeCompare(b.source),
    );
  }
  /**
   * GET /api/access-control/user/actions (Grafana's): the caller's actions as `{"<action>": true}`;
   * `reloadCache` as for `own`. Needs only credentials.
   * @throws DomainError UNAUTHENTICATED (401), 404 in oss.
   */
  async ownActions(caller: Principal, options: { reloadCache?: boolean | null }): Promise<Record<string, true>> {
    const map = await this.own(caller, options);
    return Object.fromEntries(Object.keys(map).map((action) => [action, true as const]));
  }

  /**
   * GraphQL `viewer { can(action, scope) }`: whether the caller holds `action` (on `scope` when
   * given), by the evaluator every operation uses. Needs only credentials.
   * @throws DomainError UNAUTHENTICATED (401), 404 in oss.
   */
  async can(caller: Principal, action: string, scope?: string | null): Promise<boolean> {
    this.deps.edition.assertAvailable();
    requireSignedIn(caller);
    return this.deps.access.can(caller, scope ? permission(action, scope) : permission(action));
  }

  /**
   * GraphQL `viewer { canUntil(action, scope) }`: when `can` holds only through time-bound
   * assignments, the moment the last of them ends (kernel/grants.ts allowedUntil); null when the caller
   * holds it for good, or not at all. Needs only credentials.
   * @throws DomainError UNAUTHENTICATED (401), 404 in oss.
   */
  async canUntil(caller: Principal, action: string, scope?: string | null): Promise<Date | null> {
    if (!(await this.can(caller, action, scope))) return null;
    requireSignedIn(caller);
    return allowedUntil(await grantsOf(this.deps.access, caller, action, scope ? [scope] : [], this.deps.clock.now()));
  }

  /**
   * GET /api/access-control/users/permissions/search (Grafana's, used by products to decide
   * access): for every member of the caller's organization (users and service accounts; only
   * `userId` / `userLogin` when given; disabled accounts hold nothing) holding a matching permission, its matching permissions as
   * `{"<userId>": {"<action>": ["<scope>"]}}`. Filters: `action` (equal), `actionPrefix`
   * (starts with), `scope` (a held scope equal to it or a wildcard covering it). Needs
   * users.permissions:read on users:*.
   * @throws DomainError VALIDATION_FAILED (400: no action filter, bad id), 401, 403, 404 in oss.
   */
  async search(caller: Principal, rawQuery: unknown): Promise<PermissionSearchResult> {
    this.deps.edition.assertAvailable();
    requireSignedIn(caller);
    await this.deps.access.check(caller, permissionRequirements.search.for({}));
    const q = parseInput(permissionSearchInput, rawQuery);
    const members = await this.deps.db.orgUser.findMany({
      where: {
        orgId: caller.orgId,
        user: { isDisabled: false, ...(q.userLogin && { login: q.userLogin }) },
        ...(q.userId != null && { userId: q.userId }),
      },
      select: { role: true, user: { select: { id: true, login: true, isServiceAccount: true, isServiceAdmin: true } } },
      orderBy: { userId: 'asc' },
    });
    const wanted = (p: PermissionPair) =>
      (q.action === undefined || p.action === q.action) &&
      (q.actionPrefix === undefined || p.action.startsWith(q.actionPrefix)) &&
      (q.scope === undefined || PermissionIndex.from([p]).matches(p.action, q.scope));
    const out: PermissionSearchResult = {};
    for (const m of members) {
      const index = await this.deps.access.permissionsOf(principalOf(m.user, caller.orgId, m.role, 'none'));
      const found = index.list().filter(wanted);
      if (found.length === 0) continue;
      const byAction: Record<string, string[]> = {};
      for (const p of found) byAction[p.action] = [...(byAction[p.action] ?? []), p.scope];
      out[String(m.user.id)] = byAction;
    }
    return out;
  }

  /**
   * POST /api/access-control/check and GraphQL `checkAccess`: may the user (the caller when
   * `userId` is absent) do `action` on one of `scopes` (any scope when none)? With the reason:
   * every role granting it and how it reached the user (kernel/grants.ts), and when denied what is
   * missing; a disabled subject is refused everything (`subjectDisabled`: its credentials are
   * refused, so it may do nothing). Checking another user needs users.permissions:read on users:id:<userId>; oneself
   * nothing. The permission is checked on the body's raw `userId` before the body is validated
   * (the project's rule, so a caller that may not check others gets 403 whatever else it sent):
   * a Viewer asking about user 4 with a bad action is refused, not told what is wrong.
   * @throws DomainError ACCESS_DENIED (403), VALIDATION_FAILED (400), 401, USER_NOT_FOUND (404:
   *   not a member of the caller's organization), 404 in oss.
   */
  async check(caller: Principal, rawInput: unknown): Promise<AccessCheck> {
    this.deps.edition.assertAvailable();
    requireSignedIn(caller);
    const other = otherUserOf(caller, rawInput);
    if (other !== null) await this.deps.access.check(caller, permissionRequirements.checkUser.for({ userId: other }));
    const input = parseInput(checkInput, rawInput);
    const scopes = input.scopes ?? [];
    const subject: Member =
      other !== null && input.userId != null ? await this.member(caller, input.userId) : { principal: caller, disabled: false };
    const allowed =
      !subject.disabled && permission(input.action, ...scopes).evaluate(await this.deps.access.permissionsOf(subject.principal));
    const grantedBy = allowed ? await grantsOf(this.deps.access, subject.principal, input.action, scopes, this.deps.clock.now()) : [];
    const missing = allowed ? [] : (scopes.length > 0 ? scopes : ['']).map((scope) => ({ action: input.action, scope }));
    return { allowed, allowedUntil: allowedUntil(grantedBy), grantedBy, missing, subjectDisabled: subject.disabled };
  }

  /**
   * POST /api/access-control/check/batch and GraphQL `checkMany`: up to MAX_BATCH_ITEMS checks
   * as `check` answers them, in request order, at one revision, each item with its own error
   * (batch.ts).
   * @throws DomainError as BatchChecks.checkMany.
   */
  checkMany(caller: Principal, rawInput: unknown): Promise<BatchCheck> {
    this.deps.edition.assertAvailable();
    requireSignedIn(caller);
    return this.batch.checkMany(caller, rawInput);
  }
}

/**
 * The raw `userId` of a check body when it names someone other than the caller (an API key is
 * never "oneself"), as the id to build the requirement's scope from: the number, or the text as
 * sent (a malformed id such as "abc" is refused by the permission first, then by validation);
 * `<userId>` for a value that is neither. Null when the body names no user or the caller itself.
 */
function otherUserOf(caller: SignedInPrincipal, rawInput: unknown): string | number | null {
  const raw = typeof rawInput === 'object' && rawInput !== null ? (rawInput as { userId?: unknown }).userId : undefined;
  if (raw === undefined || raw === null) return null;
  const id = typeof raw === 'string' ? (wholeNumberText(raw) ?? raw) : raw;
  if (caller.kind !== 'apiKey' && id === caller.id) return null;
  return typeof id === 'number' || typeof id === 'string' ? id : '<userId>';
}
