/**
 * Organization and OrgMembership types, with the organization queries and mutations; every
 * resolver calls one OrgService or OrgMemberService method, the same as its REST twin (rest.ts).
 */
import { asOrgRole } from '../../kernel/principal.js';
import { needs } from '../../kernel/requirements.js';
import { builder } from '../shared/builder.js';
import { MessagePayload } from '../shared/message.js';
import { OrgRoleEnum } from '../shared/org-role.js';
import { orgRequirements } from './requirements.js';

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

export const UpdateOrganizationInput = builder.inputType('UpdateOrganizationInput', {
  fields: (t) => ({
    name: t.string({ required: true, description: 'The new name: unique, at most 190 characters.' }),
  }),
});

builder.queryFields((t) => ({
  organizations: t.prismaField({
    type: [OrganizationType],
    description: 'Every organization with orgs:read on orgs:*, otherwise those the caller belongs to.',
    resolve: (query, _root, _args, ctx) => ctx.services.orgs.list(ctx.principal, query),
  }),
  searchOrganizations: t.prismaField({
    type: [OrganizationType],
    description: `Organizations by id, as Grafana's organization search (REST: GET /api/orgs). ${needs(orgRequirements.readAll)}`,
    args: {
      query: t.arg.string({ description: 'Start of the name.' }),
      name: t.arg.string({ description: 'The whole name.' }),
      page: t.arg.int({ description: 'Page number from 0, as Grafana (default 0).' }),
      perPage: t.arg.int({ description: 'Organizations per page (default 1000, at most 1000).' }),
    },
    resolve: (query, _root, args, ctx) =>
      ctx.services.orgs.search(ctx.principal, { query: args.query, name: args.name, page: args.page, perpage: args.perPage }, query),
  }),
  organization: t.prismaField({
    type: OrganizationType,
    description: `One organization: the one the caller acts in, any for a Service Admin; others are ORG_NOT_FOUND. ${needs(orgRequirements.read)}`,
    args: { id: t.arg.int({ required: true }) },
    resolve: (query, _root, args, ctx) => ctx.services.orgs.get(ctx.principal, args.id, query),
  }),
  organizationByName: t.prismaField({
    type: OrganizationType,
    description: `The organization with exactly that name (REST: GET /api/orgs/name/:name). ${needs(orgRequirements.readAll)}`,
    args: { name: t.arg.string({ required: true }) },
    resolve: (query, _root, args, ctx) => ctx.services.orgs.getByName(ctx.principal, args.name, query),
  }),
  orgUsers: t.prismaField({
    type: ['OrgUser'],
    description: `Members of an organization (people), by login (REST: GET /api/org/users). ${needs(orgRequirements.readUsers)}`,
    args: {
      orgId: t.arg.int({ description: 'The organization; the one the caller acts in when omitted.' }),
      query: t.arg.string({ description: 'Part of the login, email or name.' }),
      limit: t.arg.int({ description: 'At most this many (when > 0; at most 1000).' }),
      page: t.arg.int({ description: 'Page number from 1; with perPage, pages instead of limit.' }),
      perPage: t.arg.int({ description: 'Members per page (default 1000 once paged, at most 1000).' }),
    },
    resolve: async (query, _root, args, ctx) => {
      const options = { query: args.query, limit: args.limit, page: args.page, perpage: args.perPage };
      return (await ctx.services.orgMembers.listUsers(ctx.principal, args.orgId ?? ctx.principal.orgId, options, query)).members;
    },
  }),
}));

const membershipArgs = (t: Parameters<Parameters<typeof builder.mutationFields>[0]>[0]) => ({
  orgId: t.arg.int({ required: true, description: 'The organization; the caller must act in it unless it is a Service Admin.' }),
  userId: t.arg.int({ required: true }),
});

builder.mutationFields((t) => ({
  createOrganization: t.prismaField({
    type: OrganizationType,
    description: `Creates an organization; the caller becomes its Admin (REST: POST /api/orgs). ${needs(orgRequirements.create)}`,
    args: { input: t.arg({ type: CreateOrganizationInput, required: true }) },
    resolve: (query, _root, args, ctx) => ctx.services.orgs.create(ctx.principal, args.input, query),
  }),
  updateOrganization: t.prismaField({
    type: OrganizationType,
    description: `Renames an organization (REST: PUT /api/orgs/:orgId, PUT /api/org). ${needs(orgRequirements.write)}`,
    args: {
      id: t.arg.int({ description: 'The organization; the one the caller acts in when omitted.' }),
      input: t.arg({ type: UpdateOrganizationInput, required: true }),
    },
    resolve: (query, _root, args, ctx) => ctx.services.orgs.update(ctx.principal, args.id ?? ctx.principal.orgId, args.input, query),
  }),
  deleteOrganization: t.field({
    type: MessagePayload,
    description: `Deletes an organization with its members, teams, API keys, service accounts and org roles (REST: DELETE /api/orgs/:orgId). ${needs(orgRequirements.delete)}`,
    args: { id: t.arg.int({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.orgs.delete(ctx.principal, args.id),
  }),
  addOrgUser: t.prismaField({
    type: 'OrgUser',
    description: `Adds an existing user to an organization with an org role. ${needs(orgRequirements.addUser)}`,
    args: { ...membershipArgs(t), role: t.arg({ type: OrgRoleEnum, required: true, description: 'At most your own org role.' }) },
    resolve: (query, _root, args, ctx) => ctx.services.orgMembers.addUser(ctx.principal, args, query),
  }),
  addOrgUserByLogin: t.prismaField({
    type: 'OrgUser',
    description: `Adds the user with that login or email to an organization (REST: POST /api/org/users, POST /api/orgs/:orgId/users). ${needs(orgRequirements.addUserByLogin)}`,
    args: {
      orgId: t.arg.int({ description: 'The organization; the one the caller acts in when omitted.' }),
      loginOrEmail: t.arg.string({ required: true, description: "The user's login or email." }),
      role: t.arg({ type: OrgRoleEnum, required: true, description: 'At most your own org role.' }),
    },
    resolve: (query, _root, args, ctx) =>
      ctx.services.orgMembers.addUserByLogin(
        ctx.principal,
        args.orgId ?? ctx.principal.orgId,
        { loginOrEmail: args.loginOrEmail, role: args.role },
        query,
      ),
  }),
  updateOrgUserRole: t.prismaField({
    type: 'OrgUser',
    description: `Changes a member's org role; the last Admin stays Admin. ${needs(orgRequirements.writeUser)}`,
    args: { ...membershipArgs(t), role: t.arg({ type: OrgRoleEnum, required: true, description: 'At most your own org role.' }) },
    resolve: (query, _root, args, ctx) => ctx.services.orgMembers.updateUserRole(ctx.principal, args, query),
  }),
  removeOrgUser: t.field({
    type: MessagePayload,
    description: `Removes a member (and its team memberships there). ${needs(orgRequirements.removeUser)}`,
    args: membershipArgs(t),
    resolve: (_root, args, ctx) => ctx.services.orgMembers.removeUser(ctx.principal, args),
  }),
}));
