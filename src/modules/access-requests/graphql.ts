/**
 * GraphQL door of access requests: the AccessRequest type, queries `accessRequests` (filter and
 * page, as the REST listing) and `accessRequest(id)`, and mutations `requestAccess`,
 * `approveAccessRequest`, `denyAccessRequest`, `cancelAccessRequest`. Each resolver calls the
 * service method the REST route calls; the descriptions are the requirements the services check.
 */
import { needs } from '../../kernel/requirements.js';
import { builder } from '../shared/builder.js';
import type { SearchPage } from '../shared/directory.js';
import { MAX_PAGE_SIZE } from '../shared/paging.js';
import { ACCESS_REQUEST_STATUSES, DEFAULT_REQUESTS_PAGE_SIZE, MAX_JUSTIFICATION_LENGTH, MIN_REQUEST_SECONDS } from './inputs.js';
import type { AccessRequestView } from './records.js';
import { accessRequestRequirements, type RequestableRole } from './service.js';

const AccessRequestObject = builder.objectRef<AccessRequestView>('AccessRequest').implement({
  description: 'A just-in-time access request: a user asks for a role for a while; someone who may assign it approves or denies it.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    orgId: t.exposeInt('orgId'),
    status: t.string({
      description: `${ACCESS_REQUEST_STATUSES.join(', ')}; a pending request past expiresAt is expired.`,
      resolve: (r) => r.state,
    }),
    roleUid: t.string({ resolve: (r) => r.role.uid }),
    roleName: t.string({ resolve: (r) => r.role.name }),
    roleDisplayName: t.string({ resolve: (r) => r.role.displayName }),
    requesterId: t.exposeInt('requesterId'),
    requesterLogin: t.string({ resolve: (r) => r.requester.login }),
    requesterName: t.string({ resolve: (r) => r.requester.name }),
    durationSeconds: t.exposeInt('durationSeconds', { description: 'How long the assignment holds once approved, in seconds.' }),
    justification: t.exposeString('justification'),
    created: t.expose('created', { type: 'DateTime' }),
    expiresAt: t.expose('expiresAt', { type: 'DateTime', description: 'Unanswered by then, the request is expired.' }),
    decidedById: t.exposeInt('decidedById', { nullable: true, description: 'Who approved, denied or cancelled it.' }),
    decidedByLogin: t.string({ nullable: true, resolve: (r) => (r.decidedById === null ? null : r.decidedByLogin) }),
    decidedAt: t.expose('decidedAt', { type: 'DateTime', nullable: true }),
    comment: t.exposeString('decisionComment', { description: "The decision's comment." }),
    grantNotBefore: t.expose('grantNotBefore', {
      type: 'DateTime',
      nullable: true,
      description: 'Start of the assignment an approval wrote.',
    }),
    grantExpiresAt: t.expose('grantExpiresAt', {
      type: 'DateTime',
      nullable: true,
      description: 'End of the assignment an approval wrote.',
    }),
  }),
});

const AccessRequestPage = builder.objectRef<SearchPage<AccessRequestView>>('AccessRequestPage').implement({
  description: 'One page of access requests, newest first.',
  fields: (t) => ({
    totalCount: t.exposeInt('totalCount', { description: 'Requests matching the filter, on every page.' }),
    page: t.exposeInt('page'),
    perPage: t.exposeInt('perPage'),
    requests: t.field({ type: [AccessRequestObject], resolve: (p) => p.rows }),
  }),
});

const RequestableRoleObject = builder.objectRef<RequestableRole>('RequestableRole').implement({
  description: 'A role the caller may ask for.',
  fields: (t) => ({
    uid: t.exposeString('uid'),
    name: t.exposeString('name'),
    displayName: t.exposeString('displayName'),
    description: t.exposeString('description'),
    group: t.exposeString('group'),
    maxRequestSeconds: t.exposeInt('maxRequestSeconds', { description: 'The longest duration a request may ask for, in seconds.' }),
  }),
});

const AccessRequestFilter = builder.inputType('AccessRequestFilter', {
  description: 'Every field is optional; they combine with AND.',
  fields: (t) => ({
    status: t.string({ description: ACCESS_REQUEST_STATUSES.join(', ') }),
    roleUid: t.string(),
    requesterId: t.int({ description: "One requester's requests (another's needs access.requests:read)." }),
    mine: t.boolean({ description: "Only the caller's own requests." }),
  }),
});

builder.queryFields((t) => ({
  accessRequests: t.field({
    type: AccessRequestPage,
    description: `Access requests of the organization, newest first: one's own always, everyone's ${needs(accessRequestRequirements.read)}`,
    args: {
      filter: t.arg({ type: AccessRequestFilter }),
      page: t.arg.int({ description: 'Page number from 1.' }),
      perPage: t.arg.int({ description: `Requests per page (default ${DEFAULT_REQUESTS_PAGE_SIZE}, at most ${MAX_PAGE_SIZE}).` }),
    },
    resolve: (_root, args, ctx) => ctx.services.accessRequests.list(ctx.principal, args.filter, { page: args.page, perpage: args.perPage }),
  }),
  requestableRoles: t.field({
    type: [RequestableRoleObject],
    description: `The roles the caller may ask for (not basic, not hidden), by name. ${needs(accessRequestRequirements.create)}`,
    resolve: (_root, _args, ctx) => ctx.services.accessRequests.requestableRoles(ctx.principal),
  }),
  accessRequest: t.field({
    type: AccessRequestObject,
    description: `One access request: one's own, or any of the organization ${needs(accessRequestRequirements.read)}`,
    args: { id: t.arg.int({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.accessRequests.get(ctx.principal, args.id),
  }),
}));

const comment = builder.args((t) => ({
  comment: t.string({ description: `Optional, at most ${MAX_JUSTIFICATION_LENGTH} characters.` }),
}));

builder.mutationFields((t) => ({
  requestAccess: t.field({
    type: AccessRequestObject,
    description: `Asks for a role for durationSeconds (at least ${MIN_REQUEST_SECONDS}; at most the role's maxAssignmentSeconds and ACCESS_REQUEST_MAX_SECONDS). ${needs(accessRequestRequirements.create)}`,
    args: {
      roleUid: t.arg.string({ required: true }),
      durationSeconds: t.arg.int({ required: true }),
      justification: t.arg.string({ required: true, description: `Why, at most ${MAX_JUSTIFICATION_LENGTH} characters.` }),
    },
    resolve: (_root, args, ctx) => ctx.services.accessRequests.create(ctx.principal, args),
  }),
  approveAccessRequest: t.field({
    type: AccessRequestObject,
    description: `Approves a pending request: the requester holds the role from now for its duration. ${needs(accessRequestRequirements.decide)}`,
    args: { id: t.arg.int({ required: true }), ...comment },
    resolve: (_root, { id, ...body }, ctx) => ctx.services.accessRequestDecisions.approve(ctx.principal, id, body),
  }),
  denyAccessRequest: t.field({
    type: AccessRequestObject,
    description: `Denies a pending request. ${needs(accessRequestRequirements.decide)}`,
    args: { id: t.arg.int({ required: true }), ...comment },
    resolve: (_root, { id, ...body }, ctx) => ctx.services.accessRequestDecisions.deny(ctx.principal, id, body),
  }),
  cancelAccessRequest: t.field({
    type: AccessRequestObject,
    description: `Withdraws one's own pending request. ${needs(accessRequestRequirements.cancel)}`,
    args: { id: t.arg.int({ required: true }), ...comment },
    resolve: (_root, { id, ...body }, ctx) => ctx.services.accessRequests.cancel(ctx.principal, id, body),
  }),
}));
