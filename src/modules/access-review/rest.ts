/**
 * REST door of the access review (service.ts): who has an action and through what, paged and
 * exported (CSV or NDJSON, streamed: export.ts), and everything one user, service account or API
 * key holds and why.
 */
import type { AccessGrant } from '../../kernel/grants.js';
import type { QueryParam, Route } from '../shared/rest.js';
import { exportResponse, rowJson, SUBJECTS_HEADER } from './export.js';
import { accessReviewRequirements, type SubjectAccessPage } from './service.js';

const FILTER: readonly QueryParam[] = [
  { name: 'action', type: 'string', description: 'The action (required)' },
  { name: 'scope', type: 'string', description: 'A target scope: holders of a scope equal to it or a wildcard covering it' },
];
const PAGE: readonly QueryParam[] = [
  { name: 'first', type: 'integer', description: 'Page size (at most 1000)' },
  { name: 'after', type: 'string', description: 'The endCursor of the previous page' },
];

/** The query parameters `names` as an object (absent ones left out). */
const paramsOf = (query: URLSearchParams, names: readonly QueryParam[]) =>
  Object.fromEntries(names.flatMap(({ name }) => (query.has(name) ? [[name, query.get(name)]] : [])));

const grantJson = (g: AccessGrant) => ({
  role: { uid: g.role.uid, name: g.role.name },
  source: g.source,
  permission: g.permission,
  ...(g.until && { until: g.until.toISOString() }),
});
const subjectJson = (page: SubjectAccessPage) => ({ ...page, grants: page.grants.map(grantJson) });

export const accessReviewRoutes: Route[] = [
  {
    method: 'GET',
    path: '/api/access-control/review/who-has',
    requires: accessReviewRequirements.read,
    summary: 'Who in the organization holds an action (on a scope), and through what: {revision, rows, endCursor, hasNextPage}',
    query: [...FILTER, ...PAGE],
    handler: async ({ principal, services, query }) => {
      const page = await services.accessReview.whoHas(principal, paramsOf(query, [...FILTER, ...PAGE]));
      return { ...page, rows: page.rows.map(rowJson) };
    },
  },
  {
    method: 'GET',
    path: '/api/access-control/review/who-has/export',
    requires: accessReviewRequirements.read,
    summary: 'The whole who-has answer, streamed as CSV (one line per path) or NDJSON (one line per subject)',
    query: [
      ...FILTER,
      { name: 'format', type: 'string', description: 'csv or ndjson (default)' },
      { name: 'count', type: 'boolean', description: 'true: count the subjects first and announce them in x-review-subjects' },
    ],
    responseHeaders: {
      'x-access-revision': 'The revision the rows are read at',
      [SUBJECTS_HEADER]:
        'With count=true: how many subjects (users, service accounts, API keys) the export holds, counted at that revision',
    },
    handler: async ({ principal, services, query }) => {
      const filter = paramsOf(query, FILTER);
      const exported = await services.accessReview.exportWhoHas(principal, {
        ...filter,
        format: query.get('format'),
        count: query.get('count'),
      });
      return exportResponse(exported, { action: String(filter.action), scope: query.get('scope') });
    },
  },
  {
    method: 'GET',
    path: '/api/access-control/review/users/:userId',
    requires: accessReviewRequirements.read,
    summary: 'Everything a user or service account can do in the organization, and why',
    query: PAGE,
    handler: async ({ principal, services, params, query }) =>
      subjectJson(await services.accessReview.subjectAccess(principal, { ...paramsOf(query, PAGE), userId: params.userId })),
  },
  {
    method: 'GET',
    path: '/api/access-control/review/api-keys/:id',
    requires: accessReviewRequirements.read,
    summary: 'Everything an API key can do in the organization, and why',
    query: PAGE,
    handler: async ({ principal, services, params, query }) =>
      subjectJson(await services.accessReview.subjectAccess(principal, { ...paramsOf(query, PAGE), apiKeyId: params.id })),
  },
];
