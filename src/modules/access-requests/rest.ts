/**
 * REST door of access requests, under `/api/access-control/requests`: POST (request), GET (list
 * with filters and Grafana's search paging: `{totalCount, requests, page, perPage}`), GET one,
 * POST `/:id/approve`, `/:id/deny`, `/:id/cancel`. Each handler calls one service method, the
 * same the GraphQL door calls; the JSON shape of a request is here.
 */
import { z } from 'zod';
import { searchPageJson } from '../shared/directory.js';
import { jsonCount, jsonId, jsonTime, PAGE_PARAM, pickParams, type QueryParam, type Route } from '../shared/rest.js';
import { ACCESS_REQUEST_STATUSES, createAccessRequestInput, decisionInput } from './inputs.js';
import type { AccessRequestView } from './records.js';
import { accessRequestRequirements } from './service.js';

/** A request as the REST door answers it. */
const accessRequestDto = z
  .strictObject({
    id: jsonId(),
    orgId: jsonId(),
    status: z.enum(ACCESS_REQUEST_STATUSES).describe('Where it stands; a pending request past expiresAt is expired'),
    role: z.strictObject({ uid: z.string(), name: z.string(), displayName: z.string() }),
    requester: z.strictObject({ id: jsonId(), login: z.string(), name: z.string() }),
    durationSeconds: jsonCount().describe('How long the assignment holds once approved'),
    justification: z.string(),
    created: jsonTime(),
    expiresAt: jsonTime().describe('Unanswered by then, the request is expired'),
    decidedBy: z.strictObject({ id: z.int(), login: z.string() }).nullable().describe('Who approved, denied or cancelled it'),
    decidedAt: jsonTime().nullable(),
    comment: z.string().describe("The decision's comment"),
    grant: z
      .strictObject({ notBefore: jsonTime(), expiresAt: jsonTime() })
      .nullable()
      .describe('The window of the assignment an approval wrote'),
  })
  .meta({ id: 'AccessRequest', description: 'A just-in-time access request' });

/** JSON of a request. */
export function accessRequestJson(r: AccessRequestView): z.infer<typeof accessRequestDto> {
  return {
    id: r.id,
    orgId: r.orgId,
    status: r.state,
    role: r.role,
    requester: r.requester,
    durationSeconds: r.durationSeconds,
    justification: r.justification,
    created: r.created.toISOString(),
    expiresAt: r.expiresAt.toISOString(),
    decidedBy: r.decidedById === null ? null : { id: r.decidedById, login: r.decidedByLogin },
    decidedAt: r.decidedAt?.toISOString() ?? null,
    comment: r.decisionComment,
    grant:
      r.grantNotBefore && r.grantExpiresAt
        ? { notBefore: r.grantNotBefore.toISOString(), expiresAt: r.grantExpiresAt.toISOString() }
        : null,
  };
}

const FILTER_PARAMS: readonly QueryParam[] = [
  { name: 'status', type: 'string', description: `One of ${ACCESS_REQUEST_STATUSES.join(', ')}` },
  { name: 'roleUid', type: 'string', description: 'Requests for this role' },
  { name: 'requesterId', type: 'integer', description: "One requester's requests (another's needs access.requests:read)" },
  { name: 'mine', type: 'boolean', description: "Only the caller's own requests" },
];
const PAGING_PARAMS: readonly QueryParam[] = [
  PAGE_PARAM,
  { name: 'perpage', type: 'integer', description: 'Requests per page (default 100; above 1000: 400)' },
];

const BASE = '/api/access-control/requests';

export const accessRequestRoutes: Route[] = [
  {
    method: 'POST',
    path: BASE,
    requires: accessRequestRequirements.create,
    summary: 'Ask for a role for a while, with a justification',
    body: createAccessRequestInput,
    bodyRequired: true,
    status: 201,
    response: accessRequestDto,
    handler: async ({ principal, services, body }) => accessRequestJson(await services.accessRequests.create(principal, body)),
  },
  {
    method: 'GET',
    path: BASE,
    requires: 'signed-in',
    summary: "Access requests of the organization, newest first: one's own, or everyone's with access.requests:read",
    query: [...FILTER_PARAMS, ...PAGING_PARAMS],
    response: z.strictObject({ totalCount: jsonCount(), requests: z.array(accessRequestDto), page: z.int(), perPage: z.int() }),
    handler: async ({ principal, services, query }) =>
      searchPageJson(
        await services.accessRequests.list(principal, pickParams(query, FILTER_PARAMS), pickParams(query, PAGING_PARAMS)),
        'requests',
        accessRequestJson,
      ),
  },
  {
    method: 'GET',
    path: `${BASE}/roles`,
    requires: accessRequestRequirements.create,
    summary: 'The roles the caller may ask for, each with the longest duration a request may ask for it',
    response: z.array(
      z.strictObject({
        uid: z.string(),
        name: z.string(),
        displayName: z.string(),
        description: z.string(),
        group: z.string(),
        maxRequestSeconds: jsonCount(),
      }),
    ),
    handler: ({ principal, services }) => services.accessRequests.requestableRoles(principal),
  },
  {
    method: 'GET',
    path: `${BASE}/:id`,
    requires: 'signed-in',
    summary: "One access request: one's own, or any of the organization with access.requests:read",
    response: accessRequestDto,
    handler: async ({ principal, services, params }) => accessRequestJson(await services.accessRequests.get(principal, params.id)),
  },
  {
    method: 'POST',
    path: `${BASE}/:id/approve`,
    requires: accessRequestRequirements.decide,
    summary: 'Approve a pending request: the requester holds the role from now for its duration',
    body: decisionInput,
    response: accessRequestDto,
    handler: async ({ principal, services, params, body }) =>
      accessRequestJson(await services.accessRequestDecisions.approve(principal, params.id, body)),
  },
  {
    method: 'POST',
    path: `${BASE}/:id/deny`,
    requires: accessRequestRequirements.decide,
    summary: 'Deny a pending request',
    body: decisionInput,
    response: accessRequestDto,
    handler: async ({ principal, services, params, body }) =>
      accessRequestJson(await services.accessRequestDecisions.deny(principal, params.id, body)),
  },
  {
    method: 'POST',
    path: `${BASE}/:id/cancel`,
    requires: accessRequestRequirements.cancel,
    summary: 'Withdraw one’s own pending request',
    body: decisionInput,
    response: accessRequestDto,
    handler: async ({ principal, services, params, body }) =>
      accessRequestJson(await services.accessRequests.cancel(principal, params.id, body)),
  },
];
