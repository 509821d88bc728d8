/**
 * REST door of the change feed: `GET /api/access-control/changes?after=<revision>&limit=<n>`
 * answering `{changes, next, head}` (service.ts ChangesPage).
 */
import type { Route } from '../shared/rest.js';
import { DEFAULT_CHANGES_LIMIT } from './inputs.js';
import { changeRequirements } from './service.js';

export const changeRoutes: Route[] = [
  {
    method: 'GET',
    path: '/api/access-control/changes',
    requires: changeRequirements.read,
    summary:
      'Changes to who may do what after a revision, in revision order: {changes, next, head}. Follow with after=next; 410 CHANGES_EXPIRED: read the current state again and follow from head.',
    query: [
      { name: 'after', type: 'integer', description: 'Changes after this revision (omitted: from the oldest kept).' },
      {
        name: 'limit',
        type: 'integer',
        description: `At most this many changes (default ${DEFAULT_CHANGES_LIMIT}; missing, not a number or below 1: ${DEFAULT_CHANGES_LIMIT}; above 1000: 400).`,
      },
    ],
    handler: ({ principal, services, query }) =>
      services.changes.page(principal, { after: query.get('after') || undefined, limit: query.get('limit') ?? undefined }),
  },
];
