/**
 * Organization and OrgMembership types, with the organization queries and the membership
 * mutations; every resolver calls one OrgService method.
 */
import { asOrgRole } from '../../kernel/principal.js';
import { builder } from '../shared/builder.js';
import { MessagePayload } from '../shared/message.js';
import { OrgRoleEnum } from '../shared/org-role.js';

export const OrganizationType = builder.prismaObject('Org', {
  name: 'Organization',
  description: 'An organization: the wall between tenants. Id 1 is "Main Org.".',
  fields: (t) => ({
    id: t.exposeInt('id'),
    name: t.exposeString('name'),
    created: t.expose('created', { type: 'DateTime' }),
    updated: t.expose('updated', { type: 'DateTime' }),
  }),
});

builder.prismaObject('OrgUser', {
  name: 'OrgMembership',
  description: 'Membership of a user in an organization, with its org role there.',
  fields: (t) => ({
    orgId: t.exposeInt('orgId'),
    userId: t.exposeInt('userId'),
    role: t.field({ type: OrgRoleEnum, select: { role: true }, resolve: (m) => asOrgRole(m.role) }),
    org: t.relation('org'),
    user: t.relation('user'),
    created: t.expose('created', { type: 'DateTime' }),
    updated: t.expose('updated', { type: 'DateTime' }),
  }),
});

export const CreateOrganizationInput = builder.inputType('CreateOrganizationInput', {
  fields: (t) => ({
    name: t.string({ required: true, description: 'Unique; at most 190 characters.' }),
  }),
});

builder.queryFields((t) => ({
  organizations: t.prismaField({
    type: [OrganizationType],
    description: 'Every organization with orgs:read on orgs:*, otherwise those the caller belongs to.',
    resolve: (query, _root, _args, ctx) => ctx.services.orgs.list(ctx.principal, query),
  }),
  organization: t.prismaField({
    type: OrganizationType,
    description: 'One organization the caller belongs to (any with orgs:read on orgs:id:<id>); others are ORG_NOT_FOUND.',
    args: { id: t.arg.int({ required: true }) },
    resolve: (query, _root, args, ctx) => ctx.services.orgs.get(ctx.principal, args.id, query),
  }),
}));

const membershipArgs = (t: Parameters<Parameters<typeof builder.mutationFields>[0]>[0]) => ({
  orgId: t.arg.int({ required: true, description: 'The organization; the caller must act in it unless it is a Service Admin.' }),
  userId: t.arg.int({ required: true }),
});

builder.mutationFields((t) => ({
  createOrganization: t.prismaField({
    type: OrganizationType,
    description: 'Creates an organization; the caller becomes its Admin. Needs orgs:create (Service Admin).',
    args: { input: t.arg({ type: CreateOrganizationInput, required: true }) },
    resolve: (query, _root, args, ctx) => ctx.services.orgs.create(ctx.principal, args.input, query),
  }),
  addOrgUser: t.prismaField({
    type: 'OrgUser',
    description: 'Adds an existing user to an organization with an org role. Needs org.users:add on users:id:<userId>.',
    args: { ...membershipArgs(t), role: t.arg({ type: OrgRoleEnum, required: true, description: 'At most your own org role.' }) },
    resolve: (query, _root, args, ctx) => ctx.services.orgs.addUser(ctx.principal, args, query),
  }),
  updateOrgUserRole: t.prismaField({
    type: 'OrgUser',
    description: "Changes a member's org role. Needs org.users:write on users:id:<userId>; the last Admin stays Admin.",
    args: { ...membershipArgs(t), role: t.arg({ type: OrgRoleEnum, required: true, description: 'At most your own org role.' }) },
    resolve: (query, _root, args, ctx) => ctx.services.orgs.updateUserRole(ctx.principal, args, query),
  }),
  removeOrgUser: t.field({
    type: MessagePayload,
    description: 'Removes a member (and its team memberships there). Needs org.users:remove on users:id:<userId>.',
    args: membershipArgs(t),
    resolve: (_root, args, ctx) => ctx.services.orgs.removeUser(ctx.principal, args),
  }),
}));
