/** REST door of login sessions (Grafana's user auth tokens). */
import type { Route } from '../shared/rest.js';
import { sessionRequirements } from './service.js';

export const sessionRoutes: Route[] = [
  {
    method: 'GET',
    path: '/api/user/auth-tokens',
    requires: 'signed-in',
    handler: ({ principal, services }) => services.sessions.listOwn(principal),
  },
  {
    method: 'POST',
    path: '/api/user/revoke-auth-token',
    requires: 'signed-in',
    handler: ({ principal, services, body }) => services.sessions.revokeOwn(principal, body),
  },
  {
    method: 'POST',
    path: '/api/admin/users/:id/logout',
    requires: sessionRequirements.logoutUser,
    handler: ({ principal, services, params }) => services.sessions.logoutUser(principal, params.id),
  },
];
