/**
 * REST door of permission listings (service-interface.md "List own permissions", "List
 * permissions of a user or service account").
 */
import { parseBooleanParam, type Route } from '../shared/rest.js';
import { permissionRequirements } from './service.js';

export const permissionRoutes: Route[] = [
  {
    method: 'GET',
    path: '/api/access-control/user/permissions',
    requires: 'signed-in',
    handler: ({ principal, services, query }) =>
      services.permissions.own(principal, { reloadCache: parseBooleanParam('reloadcache', query.get('reloadcache')) }),
  },
  {
    method: 'GET',
    path: '/api/access-control/users/:userId/permissions',
    requires: permissionRequirements.readUser,
    handler: async ({ principal, services, params }) => {
      const list = await services.permissions.ofUser(principal, params.userId);
      return list;
    },
  },
];
