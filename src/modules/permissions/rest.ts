/**
 * REST door of permission listings (service-interface.md "List own permissions", "List
 * permissions of a user or service account") and of the questions products ask:
 * Grafana's permission search and user actions, and the check with its reason, one or many.
 */
import type { AccessGrant } from '../../kernel/grants.js';
import { parseBooleanParam, type QueryParam, type Route } from '../shared/rest.js';
import { batchCheckBody, checkInput, MAX_BATCH_ITEMS } from './inputs.js';
import { permissionRequirements } from './service.js';

const RELOAD_CACHE: QueryParam = { name: 'reloadcache', type: 'boolean', description: 'Rebuild the cached permissions first' };
const reloadCacheParam = (query: URLSearchParams) => ({ reloadCache: parseBooleanParam('reloadcache', query.get('reloadcache')) });

/** A reason of a check as JSON: the role's uid and name, the source, the permission. */
const grantJson = (g: AccessGrant) => ({
  role: { uid: g.role.uid, name: g.role.name },
  source: g.source,
  permission: g.permission,
  ...(g.until && { until: g.until.toISOString() }),
});

/** A check's answer as JSON: `allowedUntil` only when allowed through time-bound assignments alone, as each grant's `until`. */
function checkJson<T extends { allowedUntil: Date | null; grantedBy: AccessGrant[] }>({ allowedUntil, ...answer }: T) {
  return { ...answer, ...(allowedUntil && { allowedUntil: allowedUntil.toISOString() }), grantedBy: answer.grantedBy.map(grantJson) };
}

export const permissionRoutes: Route[] = [
  {
    method: 'GET',
    path: '/api/access-control/user/permissions',
    requires: 'signed-in',
    summary: 'The caller’s permissions: {action: [scopes]}',
    query: [RELOAD_CACHE],
    handler: ({ principal, services, query }) => services.permissions.own(principal, reloadCacheParam(query)),
  },
  {
    method: 'GET',
    path: '/api/access-control/user/actions',
    requires: 'signed-in',
    summary: 'The caller’s actions: {action: true}',
    query: [RELOAD_CACHE],
    handler: ({ principal, services, query }) => services.permissions.ownActions(principal, reloadCacheParam(query)),
  },
  {
    method: 'GET',
    path: '/api/access-control/users/permissions/search',
    requires: permissionRequirements.search,
    summary: 'Who holds which permissions: {userId: {action: [scopes]}} (an action filter is required)',
    query: [
      { name: 'action', type: 'string', description: 'Exact action' },
      { name: 'actionPrefix', type: 'string', description: 'Actions starting with this' },
      { name: 'scope', type: 'string', description: 'Scopes covering this one' },
      { name: 'userId', type: 'integer', description: 'One user' },
      { name: 'userLogin', type: 'string', description: 'One user, by login' },
    ],
    handler: ({ principal, services, query }) => services.permissions.search(principal, Object.fromEntries(query)),
  },
  {
    method: 'POST',
    path: '/api/access-control/check',
    // Oneself needs only credentials; another user permissionRequirements.checkUser (the service checks it).
    requires: 'signed-in',
    summary: 'May a user (default: the caller) do an action on scopes, and which roles grant it',
    body: checkInput,
    handler: async ({ principal, services, body }) => checkJson(await services.permissions.check(principal, body)),
  },
  {
    method: 'POST',
    path: '/api/access-control/check/batch',
    // Each item as the single check: another user needs permissionRequirements.checkUser (per item, in the service).
    requires: 'signed-in',
    summary: `Up to ${MAX_BATCH_ITEMS} checks in one request, answered in order at one revision, each with its own error`,
    body: batchCheckBody,
    handler: async ({ principal, services, body }) => {
      const answer = await services.permissions.checkMany(principal, body);
      return {
        revision: answer.revision,
        results: answer.results.map((item) =>
          item.grantedBy ? checkJson({ ...item, allowedUntil: item.allowedUntil ?? null, grantedBy: item.grantedBy }) : item,
        ),
      };
    },
  },
  {
    method: 'GET',
    path: '/api/access-control/users/:userId/permissions',
    requires: permissionRequirements.readUser,
    summary: 'The permissions of a user or service account: [{action, scope}]',
    handler: ({ principal, services, params }) => services.permissions.ofUser(principal, params.userId),
  },
];
