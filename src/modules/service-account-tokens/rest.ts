/** REST door of service-account tokens and the API key migration (Grafana's paths and shapes). */
import type { Route } from '../shared/rest.js';
import { tokenRequirements } from './service.js';

export const serviceAccountTokenRoutes: Route[] = [
  {
    method: 'GET',
    path: '/api/serviceaccounts/:id/tokens',
    requires: tokenRequirements.read,
    handler: ({ principal, services, params }) => services.serviceAccountTokens.list(principal, params.id),
  },
  {
    method: 'POST',
    path: '/api/serviceaccounts/:id/tokens',
    requires: tokenRequirements.write,
    handler: ({ principal, services, params, body }) => services.serviceAccountTokens.create(principal, params.id, body),
  },
  {
    method: 'DELETE',
    path: '/api/serviceaccounts/:id/tokens/:tokenId',
    requires: tokenRequirements.write,
    handler: ({ principal, services, params }) => services.serviceAccountTokens.delete(principal, params.id, params.tokenId),
  },
  {
    method: 'POST',
    path: '/api/serviceaccounts/migrate',
    requires: tokenRequirements.migrate,
    handler: ({ principal, services }) => services.serviceAccountTokens.migrate(principal),
  },
];
