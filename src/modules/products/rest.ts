/**
 * REST door of product role registration: PUT /api/access-control/plugins/:productId/roles with
 * the `roles` array of a Grafana plugin.json (Grafana registers plugin roles from plugin.json;
 * this service takes them over HTTP too).
 */
import { roleToJson } from '../roles/rest.js';
import type { Route } from '../shared/rest.js';
import { productRolesInput } from './inputs.js';
import { productRequirements } from './service.js';

const withPermissions = { include: { permissions: { orderBy: [{ action: 'asc' as const }, { scope: 'asc' as const }] } } };

export const productRoutes: Route[] = [
  {
    method: 'PUT',
    path: '/api/access-control/plugins/:productId/roles',
    requires: productRequirements.register,
    summary: 'Register a product’s roles (a plugin.json `roles` array), replacing its earlier registration',
    // The naming rules depend on the path's productId; the shape does not.
    body: productRolesInput('productId'),
    handler: async ({ principal, services, params, body }) => {
      const roles = await services.products.register(principal, params.productId, body, withPermissions);
      return { message: 'Product roles registered', roles: roles.map(roleToJson) };
    },
  },
];
