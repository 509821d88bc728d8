/**
 * REST door of API keys, in both editions (service-interface.md "List/Create/Delete API key"),
 * and the JSON shape of a key.
 */
import type { ApiKey } from '../../generated/prisma/client.js';
import { parseBooleanParam, type Route } from '../shared/rest.js';
import { createApiKeyInput } from './inputs.js';
import { apiKeyRequirements } from './service.js';

/** A key as the REST list answers it; `expiration` only for expiring keys, `lastUsedAt` once used. */
export interface ApiKeyJson {
  id: number;
  name: string;
  role: string;
  expiration?: string;
  lastUsedAt?: string;
}

/** JSON shape of a key row (upstream-behaviour.md "API keys": `{id, name, role, expiration?}`). */
export function apiKeyToJson(key: Pick<ApiKey, 'id' | 'name' | 'role' | 'expires' | 'lastUsedAt'>): ApiKeyJson {
  return {
    id: key.id,
    name: key.name,
    role: key.role,
    ...(key.expires && { expiration: key.expires.toISOString() }),
    ...(key.lastUsedAt && { lastUsedAt: key.lastUsedAt.toISOString() }),
  };
}

export const apiKeyRoutes: Route[] = [
  {
    method: 'GET',
    path: '/api/auth/keys',
    requires: apiKeyRequirements.read,
    summary: 'List the API keys of the current organization',
    query: [{ name: 'includeExpired', type: 'boolean', description: 'Include expired keys' }],
    handler: async ({ principal, services, query }) => {
      const keys = await services.apiKeys.list(principal, {
        includeExpired: parseBooleanParam('includeExpired', query.get('includeExpired')),
      });
      return keys.map(apiKeyToJson);
    },
  },
  {
    method: 'POST',
    path: '/api/auth/keys',
    requires: apiKeyRequirements.create,
    summary: 'Create an API key; the key is shown only in this answer',
    body: createApiKeyInput,
    handler: ({ principal, services, body }) => services.apiKeys.create(principal, body),
  },
  {
    method: 'DELETE',
    path: '/api/auth/keys/:id',
    requires: apiKeyRequirements.delete,
    summary: 'Delete an API key',
    handler: ({ principal, services, params }) => services.apiKeys.delete(principal, params.id),
  },
];
