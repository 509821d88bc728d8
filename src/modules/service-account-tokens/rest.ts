/** REST door of service-account tokens and the API key migration (Grafana's paths and shapes). */
import type { Route } from '../shared/rest.js';
import { createTokenInput } from './inputs.js';
import { tokenRequirements } from './service.js';

export const serviceAccountTokenRoutes: Route[] = [
  {
    method: 'GET',
    path: '/api/serviceaccounts/:id/tokens',
    requires: tokenRequirements.read,
    summary: 'List the tokens of a service account',
    // Grafana's TokenDTO types these as date-time strings and numbers: an unset one is left out, not null.
    handler: async ({ principal, services, params }) =>
      (await services.serviceAccountTokens.list(principal, params.id)).map((t) =>
        Object.fromEntries(Object.entries(t).filter(([, value]) => value !== null)),
      ),
  },
  {
    method: 'POST',
    path: '/api/serviceaccounts/:id/tokens',
    requires: tokenRequirements.write,
    summary: 'Create a service-account token; the key is shown only in this answer',
    body: createTokenInput,
    handler: ({ principal, services, params, body }) => services.serviceAccountTokens.create(principal, params.id, body),
  },
  {
    method: 'DELETE',
    path: '/api/serviceaccounts/:id/tokens/:tokenId',
    requires: tokenRequirements.write,
    summary: 'Delete a service-account token',
    handler: ({ principal, services, params }) => services.serviceAccountTokens.delete(principal, params.id, params.tokenId),
  },
  {
    method: 'POST',
    path: '/api/serviceaccounts/migrate',
    requires: tokenRequirements.migrate,
    summary: 'Turn every API key of the organization into a service account with one token',
    handler: ({ principal, services }) => services.serviceAccountTokens.migrate(principal),
  },
];
