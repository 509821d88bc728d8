/**
 * REST door of RBAC provisioning: Grafana's POST /api/admin/provisioning/access-control/reload.
 */
import type { Route } from '../shared/rest.js';
import { provisioningRequirements } from './service.js';

export const provisioningRoutes: Route[] = [
  {
    method: 'POST',
    path: '/api/admin/provisioning/access-control/reload',
    requires: provisioningRequirements.reload,
    summary: 'Apply the RBAC provisioning files again',
    handler: ({ principal, services }) => services.provisioning.reload(principal),
  },
];
