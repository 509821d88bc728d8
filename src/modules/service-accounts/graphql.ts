/**
 * The ServiceAccount type: a User row with isServiceAccount, in the same id space as users,
 * with its queries and mutations; every resolver calls one ServiceAccountService method.
 */
import { asOrgRole } from '../../kernel/principal.js';
import { needs } from '../../kernel/requirements.js';
import { userRoleRequirements } from '../assignments/service.js';
import { permissionRequirements } from '../permissions/service.js';
import { builder } from '../shared/builder.js';
import { MessagePayload } from '../shared/message.js';
import { OrgRoleEnum } from '../shared/org-role.js';
import { PermissionEntry } from '../shared/permission.js';

export const ServiceAccountType = builder.prismaObject('User', {
  variant: 'ServiceAccount',
  description: 'A service account of one organization. Its id is the one REST paths take as :userId.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    login: t.exposeString('login', { description: 'Generated: sa-<orgId>-<name>.' }),
    name: t.exposeString('name'),
    orgId: t.exposeInt('orgId'),
    role: t.field({
      type: OrgRoleEnum,
      description: 'Org role in its organization.',
      select: { orgId: true, orgs: { select: { orgId: true, role: true } } },
      resolve: (account) => asOrgRole(account.orgs.find((m) => m.orgId === account.orgId)?.role ?? 'None'),
    }),
    isDisabled: t.exposeBoolean('isDisabled'),
    created: t.expose('created', { type: 'DateTime' }),
    updated: t.expose('updated', { type: 'DateTime' }),
    roles: t.prismaField({
      type: ['Role'],
      description: `Roles assigned directly to the service account in the current organization and globally; not basic roles. ${needs(userRoleRequirements.read)}`,
      args: { includeHidden: t.arg.boolean({ description: 'Include hidden roles. Basic roles are never listed.' }) },
      resolve: (query, account, args, ctx) => ctx.services.userRoles.list(ctx.principal, account.id, args, query),
    }),
    permissions: t.field({
      type: [PermissionEntry],
      description: `Effective permissions in the current organization. ${needs(permissionRequirements.readUser)}`,
      resolve: (account, _args, ctx) => ctx.services.permissions.ofUser(ctx.principal, account.id),
    }),
  }),
});

export const CreateServiceAccountInput = builder.inputType('CreateServiceAccountInput', {
  fields: (t) => ({
    name: t.string({ required: true, description: 'Unique in the organization; at most 190 characters.' }),
    role: t.field({ type: OrgRoleEnum, description: 'Org role. Default Viewer; at most your own.' }),
  }),
});

export const UpdateServiceAccountInput = builder.inputType('UpdateServiceAccountInput', {
  fields: (t) => ({
    name: t.string({ description: 'Unchanged when omitted (the login keeps its value).' }),
    role: t.field({ type: OrgRoleEnum, description: 'Unchanged when omitted; at most your own.' }),
    isDisabled: t.boolean({ description: 'Unchanged when omitted.' }),
  }),
});

builder.queryFields((t) => ({
  serviceAccounts: t.prismaField({
    type: [ServiceAccountType],
    description: 'Service accounts of the current organization the caller may read (serviceaccounts:read).',
    resolve: (query, _root, _args, ctx) => ctx.services.serviceAccounts.list(ctx.principal, query),
  }),
  serviceAccount: t.prismaField({
    type: ServiceAccountType,
    description: 'One service account of the current organization. Needs serviceaccounts:read on serviceaccounts:id:<id>.',
    args: { id: t.arg.int({ required: true }) },
    resolve: (query, _root, args, ctx) => ctx.services.serviceAccounts.get(ctx.principal, args.id, query),
  }),
}));

builder.mutationFields((t) => ({
  createServiceAccount: t.prismaField({
    type: ServiceAccountType,
    description: 'Creates a service account in the current organization. Needs serviceaccounts:create.',
    args: { input: t.arg({ type: CreateServiceAccountInput, required: true }) },
    resolve: (query, _root, args, ctx) => ctx.services.serviceAccounts.create(ctx.principal, args.input, query),
  }),
  updateServiceAccount: t.prismaField({
    type: ServiceAccountType,
    description: 'Renames, re-roles, disables or enables a service account. Needs serviceaccounts:write on serviceaccounts:id:<id>.',
    args: { id: t.arg.int({ required: true }), input: t.arg({ type: UpdateServiceAccountInput, required: true }) },
    resolve: (query, _root, args, ctx) => ctx.services.serviceAccounts.update(ctx.principal, args.id, args.input, query),
  }),
  deleteServiceAccount: t.field({
    type: MessagePayload,
    description: 'Deletes a service account. Needs serviceaccounts:delete on serviceaccounts:id:<id>.',
    args: { id: t.arg.int({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.serviceAccounts.delete(ctx.principal, args.id),
  }),
}));
