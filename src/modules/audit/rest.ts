/**
 * REST door of the audit log: `GET /api/access-control/audit` with the filter in the query string
 * and Grafana's search paging (`perpage`, `page` -> `{totalCount, events, page, perPage}`, as
 * `/api/users/search`), and the JSON shape of an event.
 */
import type { AuditEvent } from '../../generated/prisma/client.js';
import { searchPageJson } from '../shared/directory.js';
import { pickParams, type QueryParam, type Route } from '../shared/rest.js';
import { auditRequirements, auditSnapshotValue } from './service.js';

/** An event as the REST door answers it. */
export interface AuditEventJson {
  id: number;
  /** ISO 8601, UTC. */
  created: string;
  /** 0 for global objects. */
  orgId: number;
  action: string;
  actor: { kind: string; id: number; login: string; authMethod: string };
  clientAddress: string;
  requestId: string;
  resource: { kind: string; id: string };
  /** The object before the change; null for a creation. */
  before: unknown;
  /** The object after the change; null for a deletion. */
  after: unknown;
}

/** JSON shape of an event row. */
export function auditEventToJson(event: AuditEvent): AuditEventJson {
  return {
    id: event.id,
    created: event.created.toISOString(),
    orgId: event.orgId,
    action: event.action,
    actor: { kind: event.actorKind, id: event.actorId, login: event.actorLogin, authMethod: event.authMethod },
    clientAddress: event.clientAddress,
    requestId: event.requestId,
    resource: { kind: event.resourceKind, id: event.resourceId },
    before: auditSnapshotValue(event.before),
    after: auditSnapshotValue(event.after),
  };
}

/** Filter parameters (inputs.ts auditFilterInput) and paging parameters of the listing. */
const FILTER_PARAMS: readonly QueryParam[] = [
  { name: 'action', type: 'string', description: 'Exactly this action, e.g. role.create.' },
  { name: 'actionPrefix', type: 'string', description: 'Actions starting with it, e.g. role. or user_role.' },
  { name: 'resourceKind', type: 'string', description: 'Kind of the changed object: role, user, team, api_key, ...' },
  { name: 'resourceId', type: 'string', description: "The changed object's id or uid." },
  { name: 'actorKind', type: 'string', description: 'user, serviceAccount, apiKey or local.' },
  { name: 'actorId', type: 'integer', description: "The actor's id (0: the local operator)." },
  { name: 'actorLogin', type: 'string', description: "The actor's login, or an API key's name." },
  { name: 'orgId', type: 'integer', description: "One organization's events, 0 for global ones (Service Admin only)." },
  { name: 'from', type: 'string', description: 'Created at or after: ISO 8601 or milliseconds since the epoch.' },
  { name: 'to', type: 'string', description: 'Created at or before: ISO 8601 or milliseconds since the epoch.' },
];
const PAGING_PARAMS: readonly QueryParam[] = [
  {
    name: 'perpage',
    type: 'integer',
    description: 'Events per page (default 100; missing, not a number or below 1: 100; above 1000: 400).',
  },
  { name: 'page', type: 'integer', description: 'Page number from 1 (default 1; missing, not a number or below 1: 1).' },
];

export const auditRoutes: Route[] = [
  {
    method: 'GET',
    path: '/api/access-control/audit',
    requires: auditRequirements.read,
    summary: 'Audit events matching the filter, newest first, in pages.',
    query: [...FILTER_PARAMS, ...PAGING_PARAMS],
    handler: async ({ principal, services, query }) =>
      searchPageJson(
        await services.audit.list(principal, pickParams(query, FILTER_PARAMS), pickParams(query, PAGING_PARAMS)),
        'events',
        auditEventToJson,
      ),
  },
];
