/**
 * The ServiceAccount type: a User row with isServiceAccount, in the same id space as users,
 * with its queries and mutations; every resolver calls one ServiceAccountService method.
 */
import { queryFromInfo } from '@pothos/plugin-prisma';
import type { User } from '../../generated/prisma/client.js';
import { asOrgRole } from '../../kernel/principal.js';
import { needs } from '../../kernel/requirements.js';
import { ROLE_ASSIGNMENTS, RoleAssignment, userAssignmentsBatch, userRolesBatch } from '../assignments/graphql.js';
import { userRoleRequirements } from '../assignments/service.js';
import { permissionRequirements } from '../permissions/service.js';
import { builder, DENIABLE } from '../shared/builder.js';
import { avatarUrl } from '../shared/directory.js';
import { MessagePayload } from '../shared/message.js';
import { OrgRoleEnum } from '../shared/org-role.js';
import { PermissionEntry } from '../shared/permission.js';
import { serviceAccountRequirements } from './service.js';

export const ServiceAccountType = builder.prismaObject('User', {
  variant: 'ServiceAccount',
  description: 'A service account of one organization. Its id is the one REST paths take as :userId and in /api/serviceaccounts/:id.',
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
    avatarUrl: t.string({
      description: "Grafana's avatar address, derived from the name: /avatar/<md5 of <name letters and digits>@localhost>.",
      select: { name: true },
      resolve: (account) => avatarUrl('', account.name),
    }),
    tokenCount: t.relationCount('tokens', { description: 'Number of tokens (REST: `tokens`).' }),
    created: t.expose('created', { type: 'DateTime' }),
    updated: t.expose('updated', { type: 'DateTime' }),
    roles: t.prismaField({
      type: ['Role'],
      nullable: true,
      description: `Roles assigned directly to the service account in the current organization and globally; not basic roles. ${needs(userRoleRequirements.read)} ${DENIABLE}`,
      args: { includeHidden: t.arg.boolean({ description: 'Include hidden roles. Basic roles are never listed.' }) },
      resolve: (query, account, args, ctx, info) => userRolesBatch(account.id, { args, query: { ...query } }, ctx, info),
    }),
    roleAssignments: t.field({
      type: [RoleAssignment],
      nullable: true,
      description: `${ROLE_ASSIGNMENTS} ${needs(userRoleRequirements.read)} ${DENIABLE}`,
      args: { includeHidden: t.arg.boolean({ description: 'Include hidden roles.' }) },
      resolve: (account, args, ctx, info) => userAssignmentsBatch(account.id, args, ctx, info),
    }),
    permissions: t.field({
      type: [PermissionEntry],
      nullable: true,
      description: `Effective permissions in the current organization. ${needs(permissionRequirements.readUser)} ${DENIABLE}`,
      resolve: (account, _args, ctx) => ctx.services.permissions.ofUser(ctx.principal, account.id),
    }),
  }),
});

export const CreateServiceAccountInput = builder.inputType('CreateServiceAccountInput', {
  fields: (t) => ({
    name: t.string({ required: true, description: 'Unique in the organization; at most 190 characters.' }),
    role: t.field({ type: OrgRoleEnum, description: 'Org role. Default Viewer; at most your own.' }),
    isDisabled: t.boolean({ description: 'Create it disabled (its tokens do not authenticate). Default false.' }),
  }),
});

/** One page of serviceAccountSearch, the shape of Grafana's SearchOrgServiceAccountsResult. */
const ServiceAccountSearchResult = builder
  .objectRef<{ totalCount: number; page: number; perPage: number; serviceAccounts: User[] }>('ServiceAccountSearchResult')
  .implement({
    description: 'One page of a service account search (REST: GET /api/serviceaccounts/search).',
    fields: (t) => ({
      totalCount: t.exposeInt('totalCount', { description: 'Number of matching service accounts on every page.' }),
      page: t.exposeInt('page'),
      perPage: t.exposeInt('perPage'),
      serviceAccounts: t.field({
        type: [ServiceAccountType],
        description: 'This page, by name.',
        resolve: (result) => result.serviceAccounts,
      }),
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
    description: `Service accounts of the current organization the caller may read (${serviceAccountRequirements.search.text()}).`,
    resolve: (query, _root, _args, ctx) => ctx.services.serviceAccounts.list(ctx.principal, query),
  }),
  serviceAccountSearch: t.field({
    type: ServiceAccountSearchResult,
    description: `One page of the service accounts of the current organization the caller may read, as Grafana's service account search. ${needs(serviceAccountRequirements.search)}`,
    args: {
      query: t.arg.string({ description: 'Part of the name or login, in any case.' }),
      disabled: t.arg.boolean({ description: 'Only disabled service accounts.' }),
      page: t.arg.int({ description: 'Page number from 1 (default 1).' }),
      perPage: t.arg.int({ description: 'Service accounts per page (default 1000, at most 1000).' }),
    },
    resolve: async (_root, args, ctx, info) => {
      const query = queryFromInfo({ context: ctx, info, path: ['serviceAccounts'] });
      const page = await ctx.services.serviceAccounts.search(ctx.principal, args, query);
      return { totalCount: page.totalCount, page: page.page, perPage: page.perPage, serviceAccounts: page.rows };
    },
  }),
  serviceAccount: t.prismaField({
    type: ServiceAccountType,
    description: `One service account of the current organization. ${needs(serviceAccountRequirements.read)}`,
    args: { id: t.arg.int({ required: true }) },
    resolve: (query, _root, args, ctx) => ctx.services.serviceAccounts.get(ctx.principal, args.id, query),
  }),
}));

builder.mutationFields((t) => ({
  createServiceAccount: t.prismaField({
    type: ServiceAccountType,
    description: `Creates a service account in the current organization. ${needs(serviceAccountRequirements.create)}`,
    args: { input: t.arg({ type: CreateServiceAccountInput, required: true }) },
    resolve: (query, _root, args, ctx) => ctx.services.serviceAccounts.create(ctx.principal, args.input, query),
  }),
  updateServiceAccount: t.prismaField({
    type: ServiceAccountType,
    description: `Renames, re-roles, disables or enables a service account. ${needs(serviceAccountRequirements.write)}`,
    args: { id: t.arg.int({ required: true }), input: t.arg({ type: UpdateServiceAccountInput, required: true }) },
    resolve: (query, _root, args, ctx) => ctx.services.serviceAccounts.update(ctx.principal, args.id, args.input, query),
  }),
  deleteServiceAccount: t.field({
    type: MessagePayload,
    description: `Deletes a service account with its tokens and role assignments. ${needs(serviceAccountRequirements.delete)}`,
    args: { id: t.arg.int({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.serviceAccounts.delete(ctx.principal, args.id),
  }),
}));
