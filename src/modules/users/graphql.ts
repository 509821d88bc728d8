/**
 * The User type (a person; service accounts have their own type on the same table), with the
 * user queries and mutations; every resolver calls one user service method, the same as its REST
 * twin (rest.ts). No field exposes the password hash.
 */
import { queryFromInfo } from '@pothos/plugin-prisma';
import type { Team } from '../../generated/prisma/client.js';
import { visibleMemberships } from '../../kernel/guards.js';
import { needs } from '../../kernel/requirements.js';
import { userRolesBatch } from '../assignments/graphql.js';
import { userRoleRequirements } from '../assignments/service.js';
import { permissionRequirements } from '../permissions/service.js';
import { batchByPath } from '../shared/batch.js';
import { builder, DEFAULT_LIST_BOUND, DENIABLE } from '../shared/builder.js';
import type { SearchPage } from '../shared/directory.js';
import { MessagePayload } from '../shared/message.js';
import { OrgRoleEnum } from '../shared/org-role.js';
import { MAX_PAGE_SIZE, pageSize, requestedRows } from '../shared/paging.js';
import { PermissionEntry } from '../shared/permission.js';
import type { SearchedUser } from './search.js';
import { type TeamQuery, userRequirements } from './service.js';

/** `User.teams` of every row at one path, in one batch (shared/batch.ts). */
const teamsOfUsers = batchByPath<number, Team[], TeamQuery>((ids, ctx, query) => ctx.services.users.teamsOfMany(ctx.principal, ids, query));

export const UserType = builder.prismaObject('User', {
  description: 'A user. Its numeric id is the one REST paths take as :userId.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    login: t.exposeString('login'),
    email: t.exposeString('email'),
    name: t.exposeString('name'),
    isServiceAdmin: t.exposeBoolean('isServiceAdmin', { description: 'Server-wide administrator (basic:service_admin).' }),
    isDisabled: t.exposeBoolean('isDisabled', { description: 'A disabled user cannot sign in.' }),
    orgs: t.relation('orgs', {
      description: "Memberships with org roles: the current organization's only, all of them for a Service Admin.",
      query: (_args, ctx) => ({ where: visibleMemberships(ctx.principal), orderBy: [{ orgId: 'asc' }] }),
    }),
    teams: t.prismaField({
      type: ['Team'],
      nullable: true,
      description: `The user's first teams by name in the current organization that the caller may read (teams:read on teams:id:<id>): \`first\` of them (default ${DEFAULT_LIST_BOUND}, at most ${MAX_PAGE_SIZE}). Every one: REST GET /api/users/:id/teams. ${DENIABLE}`,
      args: { first: t.arg.int({ description: `How many (default ${DEFAULT_LIST_BOUND}, at most ${MAX_PAGE_SIZE}).` }) },
      // Bounded, so the cost estimate (use-graphql-limits.ts) is an upper bound: teams of team members multiply.
      complexity: (args) => ({ field: 1, multiplier: requestedRows(args.first, DEFAULT_LIST_BOUND) }),
      resolve: async (query, user, args, ctx, info) =>
        (await teamsOfUsers(user.id, { ...query }, ctx, info)).slice(0, pageSize('first', args.first, DEFAULT_LIST_BOUND)),
    }),
    created: t.expose('created', { type: 'DateTime' }),
    updated: t.expose('updated', { type: 'DateTime' }),
    roles: t.prismaField({
      type: ['Role'],
      nullable: true,
      description: `Roles assigned directly to the user in the current organization and globally; not basic roles, not team roles. ${needs(userRoleRequirements.read)} ${DENIABLE}`,
      args: { includeHidden: t.arg.boolean({ description: 'Include hidden roles. Basic roles are never listed.' }) },
      resolve: (query, user, args, ctx, info) => userRolesBatch(user.id, { args, query: { ...query } }, ctx, info),
    }),
    permissions: t.field({
      type: [PermissionEntry],
      nullable: true,
      description: `Effective permissions in the current organization. ${needs(permissionRequirements.readUser)} ${DENIABLE}`,
      resolve: (user, _args, ctx) => ctx.services.permissions.ofUser(ctx.principal, user.id),
    }),
  }),
});

export const CreateUserInput = builder.inputType('CreateUserInput', {
  fields: (t) => ({
    login: t.string({ required: true, description: 'Unique; no white space or ":"; at most 190 characters.' }),
    email: t.string({ required: true, description: 'Unique email address.' }),
    name: t.string({ description: 'Display name.' }),
    password: t.string({ required: true, description: 'At least 4 characters. Stored as an argon2 hash, never returned.' }),
    orgId: t.int({
      description: "Organization to join (REST: OrgId). Default the request's; another one needs a Service Admin.",
    }),
    orgRole: t.field({ type: OrgRoleEnum, description: 'Role in the organization joined. Default Viewer; at most your own.' }),
    isServiceAdmin: t.boolean({ description: 'Make the user a Service Admin (Service Admin only). Default false.' }),
  }),
});

export const UpdateUserInput = builder.inputType('UpdateUserInput', {
  fields: (t) => ({
    login: t.string({ description: 'Unchanged when omitted.' }),
    email: t.string({ description: 'Unchanged when omitted.' }),
    name: t.string({ description: 'Unchanged when omitted.' }),
    password: t.string({ description: "Unchanged when omitted; a new one ends the user's sessions." }),
    isServiceAdmin: t.boolean({ description: 'Grant or revoke Service Admin (Service Admin only). Unchanged when omitted.' }),
  }),
});

/** One page of userSearch, the shape of Grafana's SearchUserQueryResult. */
const UserSearchResult = builder.objectRef<SearchPage<SearchedUser>>('UserSearchResult').implement({
  description: 'One page of a user search (REST: GET /api/users/search).',
  fields: (t) => ({
    totalCount: t.exposeInt('totalCount', { description: 'Number of matching users on every page.' }),
    page: t.exposeInt('page'),
    perPage: t.exposeInt('perPage'),
    users: t.field({ type: [UserType], resolve: (result) => result.rows }),
  }),
});

builder.queryFields((t) => ({
  users: t.prismaField({
    type: ['User'],
    description: 'Members of the current organization (org.users:read), or with global: true every user (users:read on global.users:*).',
    args: { global: t.arg.boolean({ description: 'List every user of the service instead of the current organization.' }) },
    resolve: (query, _root, args, ctx) => ctx.services.users.list(ctx.principal, args, query),
  }),
  userSearch: t.field({
    type: UserSearchResult,
    description: `One page of every user whose login, email or name contains query, by login (REST: GET /api/users/search). ${needs(userRequirements.search)}`,
    args: {
      query: t.arg.string({ description: 'Part of the login, email or name (ASCII letters in any case).' }),
      page: t.arg.int({ description: 'Page number from 1 (default 1).' }),
      perPage: t.arg.int({ description: 'Users per page (default 1000, at most 1000).' }),
    },
    resolve: (_root, args, ctx, info) =>
      ctx.services.userSearch.search(ctx.principal, args, queryFromInfo({ context: ctx, info, path: ['users'] })),
  }),
  user: t.prismaField({
    type: 'User',
    description: `One user: a member of the current organization (org.users:read), or any user with users:read on global.users:id:<id>. With global: true only the latter, as REST GET /api/users/:id (${userRequirements.read.text()}).`,
    args: {
      id: t.arg.int({ required: true }),
      global: t.arg.boolean({
        description: "Read it as a server administrator (Grafana's rule), not as a member of the current organization.",
      }),
    },
    resolve: (query, _root, args, ctx) => ctx.services.users.get(ctx.principal, args.id, query, args),
  }),
  userByLoginOrEmail: t.prismaField({
    type: 'User',
    description: `The user whose login or email this is (REST: GET /api/users/lookup). ${needs(userRequirements.search)}`,
    args: { loginOrEmail: t.arg.string({ required: true }) },
    resolve: (query, _root, args, ctx) => ctx.services.userSearch.lookup(ctx.principal, args.loginOrEmail, query),
  }),
}));

builder.mutationFields((t) => ({
  createUser: t.prismaField({
    type: 'User',
    description: `Creates a user who joins orgId (default the request's organization) with orgRole (Viewer by default); a taken login or email is USER_ALREADY_EXISTS (412), as on its REST twin POST /api/admin/users (Grafana's answer). Needs ${userRequirements.create.text()}.`,
    args: { input: t.arg({ type: CreateUserInput, required: true }) },
    resolve: (query, _root, args, ctx) => ctx.services.users.create(ctx.principal, args.input, query),
  }),
  updateUser: t.prismaField({
    type: 'User',
    description: `Updates a user (REST: PUT /api/users/:id). Needs ${userRequirements.write.text()}; a password also ${userRequirements.setPassword.text()}, isServiceAdmin also ${userRequirements.setServiceAdmin.text()}.`,
    args: { id: t.arg.int({ required: true }), input: t.arg({ type: UpdateUserInput, required: true }) },
    resolve: (query, _root, args, ctx) => ctx.services.users.update(ctx.principal, args.id, args.input, query),
  }),
  deleteUser: t.field({
    type: MessagePayload,
    description: `Deletes a user with its memberships, role assignments and sessions (REST: DELETE /api/admin/users/:id). ${needs(userRequirements.delete)}`,
    args: { id: t.arg.int({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.users.delete(ctx.principal, args.id),
  }),
  setUserPassword: t.field({
    type: MessagePayload,
    description: `Sets a local user's password (at least 4 characters); its sessions end (REST: PUT /api/admin/users/:id/password). ${needs(userRequirements.setPassword)}`,
    args: { id: t.arg.int({ required: true }), password: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.userAdmin.setPassword(ctx.principal, args.id, { password: args.password }),
  }),
  setUserServiceAdmin: t.field({
    type: MessagePayload,
    description: `Grants or revokes the Service Admin flag; the last enabled Service Admin keeps it (REST: PUT /api/admin/users/:id/permissions). ${needs(userRequirements.setServiceAdmin)}`,
    args: { id: t.arg.int({ required: true }), isServiceAdmin: t.arg.boolean({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.userAdmin.setServiceAdmin(ctx.principal, args.id, { isGrafanaAdmin: args.isServiceAdmin }),
  }),
  disableUser: t.field({
    type: MessagePayload,
    description: `Disables a user: it cannot sign in and its sessions end; it keeps its data (REST: POST /api/admin/users/:id/disable). ${needs(userRequirements.disable)}`,
    args: { id: t.arg.int({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.userAdmin.disable(ctx.principal, args.id),
  }),
  enableUser: t.field({
    type: MessagePayload,
    description: `Enables a disabled user (REST: POST /api/admin/users/:id/enable). ${needs(userRequirements.enable)}`,
    args: { id: t.arg.int({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.userAdmin.enable(ctx.principal, args.id),
  }),
  unlockUser: t.field({
    type: MessagePayload,
    description: `Lifts the sign-in lock that failed passwords put on a user (429 LOGIN_BLOCKED) (REST: POST /api/admin/users/:id/unlock). ${needs(userRequirements.unlock)}`,
    args: { id: t.arg.int({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.userAdmin.unlock(ctx.principal, args.id),
  }),
  switchUserOrganization: t.field({
    type: MessagePayload,
    description: `Makes one of a user's organizations its default (REST: POST /api/users/:id/using/:orgId). ${needs(userRequirements.write)}`,
    args: { id: t.arg.int({ required: true }), orgId: t.arg.int({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.userAdmin.switchOrg(ctx.principal, args.id, args.orgId),
  }),
}));
