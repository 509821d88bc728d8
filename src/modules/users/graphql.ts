/**
 * The User type (a person; service accounts have their own type on the same table), with the
 * user queries and mutations; every resolver calls one UserService method. No field exposes
 * the password hash.
 */
import { visibleMemberships } from '../../kernel/guards.js';
import { needs } from '../../kernel/requirements.js';
import { userRoleRequirements } from '../assignments/service.js';
import { permissionRequirements } from '../permissions/service.js';
import { builder } from '../shared/builder.js';
import { MessagePayload } from '../shared/message.js';
import { OrgRoleEnum } from '../shared/org-role.js';
import { PermissionEntry } from '../shared/permission.js';

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
    created: t.expose('created', { type: 'DateTime' }),
    updated: t.expose('updated', { type: 'DateTime' }),
    roles: t.prismaField({
      type: ['Role'],
      description: `Roles assigned directly to the user in the current organization and globally; not basic roles, not team roles. ${needs(userRoleRequirements.read)}`,
      args: { includeHidden: t.arg.boolean({ description: 'Include hidden roles. Basic roles are never listed.' }) },
      resolve: (query, user, args, ctx) => ctx.services.userRoles.list(ctx.principal, user.id, args, query),
    }),
    permissions: t.field({
      type: [PermissionEntry],
      description: `Effective permissions in the current organization. ${needs(permissionRequirements.readUser)}`,
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
    orgRole: t.field({ type: OrgRoleEnum, description: "Role in the request's organization. Default Viewer; at most your own." }),
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

builder.queryFields((t) => ({
  users: t.prismaField({
    type: ['User'],
    description: 'Members of the current organization (org.users:read), or with global: true every user (users:read on global.users:*).',
    args: { global: t.arg.boolean({ description: 'List every user of the service instead of the current organization.' }) },
    resolve: (query, _root, args, ctx) => ctx.services.users.list(ctx.principal, args, query),
  }),
  user: t.prismaField({
    type: 'User',
    description: 'One user: a member of the current organization (org.users:read), or any user with users:read on global.users:*.',
    args: { id: t.arg.int({ required: true }) },
    resolve: (query, _root, args, ctx) => ctx.services.users.get(ctx.principal, args.id, query),
  }),
}));

builder.mutationFields((t) => ({
  createUser: t.prismaField({
    type: 'User',
    description: "Creates a user who joins the request's organization with orgRole (Viewer by default). Needs users:create.",
    args: { input: t.arg({ type: CreateUserInput, required: true }) },
    resolve: (query, _root, args, ctx) => ctx.services.users.create(ctx.principal, args.input, query),
  }),
  updateUser: t.prismaField({
    type: 'User',
    description: 'Updates a user. Needs users:write on global.users:id:<id>.',
    args: { id: t.arg.int({ required: true }), input: t.arg({ type: UpdateUserInput, required: true }) },
    resolve: (query, _root, args, ctx) => ctx.services.users.update(ctx.principal, args.id, args.input, query),
  }),
  deleteUser: t.field({
    type: MessagePayload,
    description: 'Deletes a user with its memberships and role assignments. Needs users:delete on global.users:id:<id>.',
    args: { id: t.arg.int({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.users.delete(ctx.principal, args.id),
  }),
}));
