/**
 * GraphQL door of permission listings: `viewer` (the caller, with its roles, teams and
 * permissions in one round-trip), `userPermissions`, and the questions products ask
 * (`userPermissionsSearch`, `checkAccess`). Resolvers call PermissionService, the same the REST
 * routes call.
 */
import type { AccessGrant as AccessGrantShape } from '../../kernel/grants.js';
import { requireSignedIn } from '../../kernel/guards.js';
import type { SignedInPrincipal } from '../../kernel/principal.js';
import { needs } from '../../kernel/requirements.js';
import { RoleObject } from '../roles/graphql.js';
import { builder } from '../shared/builder.js';
import { CARRIED_RELATIONS } from '../shared/carried-relations.js';
import { OrgRoleEnum } from '../shared/org-role.js';
import { PermissionEntry } from '../shared/permission.js';
import type { AccessCheck } from './explain.js';
import { permissionRequirements } from './service.js';

const PrincipalKind = builder.enumType('PrincipalKind', {
  values: { user: { value: 'user' }, serviceAccount: { value: 'serviceAccount' }, apiKey: { value: 'apiKey' } } as const,
});

export const Viewer = builder.objectRef<SignedInPrincipal>('Viewer').implement({
  description: 'The authenticated caller in the organization it acts in.',
  fields: (t) => ({
    id: t.exposeInt('id', { description: 'User, service account or API key id.' }),
    kind: t.field({ type: PrincipalKind, resolve: (p) => p.kind }),
    login: t.string({ description: 'Login, or the key name for an API key.', resolve: (p) => (p.kind === 'apiKey' ? p.name : p.login) }),
    orgId: t.exposeInt('orgId', { description: 'The organization this request acts in.' }),
    orgRole: t.field({ type: OrgRoleEnum, description: 'Org role in that organization.', resolve: (p) => p.orgRole }),
    isServiceAdmin: t.exposeBoolean('isServiceAdmin'),
    roles: t.prismaField({
      type: ['Role'],
      description: 'Every role behind its permissions: basic, direct (org and global) and team roles.',
      // Served with their permissions from the held roles' cache (kernel/role-rows.ts), so the
      // frontend's `viewer { roles { name permissions { action scope } } }` may run compiled.
      extensions: { [CARRIED_RELATIONS]: ['permissions'] },
      resolve: (query, principal, _args, ctx) => ctx.services.permissions.ownRoles(principal, query),
    }),
    permissions: t.field({
      type: [PermissionEntry],
      description: 'Effective permissions, sorted by action then scope.',
      resolve: (principal, _args, ctx) => ctx.services.permissions.ownList(principal),
    }),
    can: t.boolean({
      description: 'Whether the caller holds action (on scope when given: a held scope equal to it or a wildcard covering it).',
      args: { action: t.arg.string({ required: true }), scope: t.arg.string() },
      resolve: (principal, args, ctx) => ctx.services.permissions.can(principal, args.action, args.scope),
    }),
    canUntil: t.field({
      type: 'DateTime',
      nullable: true,
      description:
        'When can(action, scope) holds only through time-bound assignments: the moment the last of them ends. Null: held for good, or not held.',
      args: { action: t.arg.string({ required: true }), scope: t.arg.string() },
      resolve: (principal, args, ctx) => ctx.services.permissions.canUntil(principal, args.action, args.scope),
    }),
    teams: t.prismaField({
      type: ['Team'],
      description: 'Teams the caller belongs to in the current organization, by name (none for an API key).',
      resolve: (query, principal, _args, ctx) => ctx.services.teams.ofCaller(principal, query),
    }),
  }),
});

builder.queryField('viewer', (t) =>
  t.field({
    type: Viewer,
    description: 'The caller. Needs any credentials.',
    resolve: (_root, _args, ctx) => {
      requireSignedIn(ctx.principal);
      return ctx.principal;
    },
  }),
);

export const AccessGrant = builder.objectRef<AccessGrantShape>('AccessGrant').implement({
  description: 'One way a checked permission is granted: the role, how it reached the user, and its matching permission.',
  fields: (t) => ({
    role: t.field({ type: RoleObject, resolve: (g) => g.role }),
    source: t.exposeString('source', {
      description: 'direct, team:<name>, basic:<viewer|editor|admin>, service-admin or api-key.',
    }),
    permission: t.field({ type: PermissionEntry, resolve: (g) => g.permission }),
    until: t.expose('until', {
      type: 'DateTime',
      nullable: true,
      description: 'When this way ends (its time-bound assignment expires); null: for good.',
    }),
  }),
});

const AccessCheckResult = builder.objectRef<AccessCheck>('AccessCheck').implement({
  description: 'The answer of checkAccess: allowed, why, and when denied what is missing.',
  fields: (t) => ({
    allowed: t.exposeBoolean('allowed'),
    allowedUntil: t.expose('allowedUntil', {
      type: 'DateTime',
      nullable: true,
      description: 'When allowed only through time-bound assignments: the moment the last of them ends. Null: for good, or denied.',
    }),
    grantedBy: t.field({ type: [AccessGrant], resolve: (c) => c.grantedBy }),
    missing: t.field({
      type: [PermissionEntry],
      description: 'When denied: the action on each target scope; holding any one of them would do.',
      resolve: (c) => c.missing,
    }),
    subjectDisabled: t.exposeBoolean('subjectDisabled', {
      description: "True when the subject's account is disabled: it holds nothing while disabled, so allowed is false.",
    }),
  }),
});

/** One row of userPermissionsSearch: a user's scopes for one matching action. */
interface SearchRow {
  userId: number;
  action: string;
  scopes: string[];
}

const UserPermissionsSearchRow = builder.objectRef<SearchRow>('UserPermissionsSearchRow').implement({
  description: 'A member of the organization holding a matching action, with its scopes for that action.',
  fields: (t) => ({
    userId: t.exposeInt('userId', { description: 'User or service account id.' }),
    action: t.exposeString('action'),
    scopes: t.exposeStringList('scopes', { description: 'Scopes the member holds the action on, in the order of its permissions.' }),
  }),
});

builder.queryFields((t) => ({
  userPermissionsSearch: t.field({
    type: [UserPermissionsSearchRow],
    description: `The GraphQL twin of GET /api/access-control/users/permissions/search: every member of the current organization (only userId / userLogin when given) holding a matching permission, one row per member and action, ordered by userId then action. At least one of action or actionPrefix is required (400). ${needs(permissionRequirements.search)}`,
    args: {
      actionPrefix: t.arg.string({ description: 'Actions starting with this.' }),
      action: t.arg.string({ description: 'Exact action.' }),
      scope: t.arg.string({ description: 'Scopes covering this one (equal, or a wildcard over it).' }),
      userId: t.arg.int({ description: 'One user or service account.' }),
      userLogin: t.arg.string({ description: 'One user, by login.' }),
    },
    resolve: async (_root, args, ctx) => {
      const found = await ctx.services.permissions.search(ctx.principal, args);
      return Object.entries(found)
        .flatMap(([userId, byAction]) => Object.entries(byAction).map(([action, scopes]) => ({ userId: Number(userId), action, scopes })))
        .sort((a, b) => a.userId - b.userId || (a.action < b.action ? -1 : a.action > b.action ? 1 : 0));
    },
  }),
  checkAccess: t.field({
    type: AccessCheckResult,
    description: `May the user (the caller when userId is omitted) do action on one of scopes (on any scope when none)? ${needs(permissionRequirements.checkUser)}`,
    args: {
      userId: t.arg.int({ description: 'A user or service account of the current organization; default the caller.' }),
      action: t.arg.string({ required: true }),
      scopes: t.arg.stringList({ description: 'Target scopes; one of them must be covered.' }),
    },
    resolve: (_root, args, ctx) => ctx.services.permissions.check(ctx.principal, args),
  }),
  userPermissionSources: t.field({
    type: [AccessGrant],
    description: `Effective permissions of a user or service account in the current organization, each with the role granting it and how that role reaches the user (direct, team:<name>, basic:<role>, service-admin); a permission granted several ways appears once per way. ${needs(permissionRequirements.readUser)}`,
    args: { userId: t.arg.int({ required: true, description: 'Id of a user or service account of the current organization.' }) },
    resolve: (_root, args, ctx) => ctx.services.permissions.sourcesOfUser(ctx.principal, args.userId),
  }),
  userPermissions: t.field({
    type: [PermissionEntry],
    description: `Effective permissions of a user or service account in the current organization. ${needs(permissionRequirements.readUser)}`,
    args: { userId: t.arg.int({ required: true, description: 'Id of a user or service account of the current organization.' }) },
    resolve: (_root, args, ctx) => ctx.services.permissions.ofUser(ctx.principal, args.userId),
  }),
}));
