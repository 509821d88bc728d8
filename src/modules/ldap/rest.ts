/** `GET /api/admin/ldap/status` (Grafana's path): each LDAP server's reachability, for Service Admins. */
import type { Route } from '../shared/rest.js';
import { ldapRequirements } from './service.js';

export const ldapRoutes: Route[] = [
  {
    method: 'GET',
    path: '/api/admin/ldap/status',
    requires: ldapRequirements.status,
    summary: 'Reachability of each configured LDAP server',
    handler: ({ principal, services }) => services.ldap.status(principal),
  },
];
