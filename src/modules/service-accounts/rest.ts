/**
 * REST door of service accounts, Grafana's paths and shapes (service account routes,
 * public/openapi3.json ServiceAccountDTO, ServiceAccountProfileDTO,
 * SearchOrgServiceAccountsResult): `GET /api/serviceaccounts/search`, `POST /api/serviceaccounts`
 * (201), `GET|PATCH|DELETE /api/serviceaccounts/:id`. Token routes live in
 * modules/service-account-tokens.
 */
import { z } from 'zod';
import type { Prisma, User } from '../../generated/prisma/client.js';
import { asOrgRole, ORG_ROLES } from '../../kernel/principal.js';
import { avatarUrl, grafanaBody, type SearchPage, searchPageJson } from '../shared/directory.js';
import {
  ACCESS_CONTROL_PARAM,
  accessControlJson,
  accessControlParam,
  directorySearchParams,
  directorySearchQuery,
  jsonCount,
  jsonId,
  jsonTime,
  messageJson,
  parseBooleanParam,
  type QueryParam,
  type Route,
  searchPageSchema,
} from '../shared/rest.js';
import { createServiceAccountInput, updateServiceAccountInput } from './inputs.js';
import { serviceAccountRequirements } from './service.js';

const serviceAccountFields = {
  id: jsonId(),
  name: z.string(),
  login: z.string().meta({ description: 'sa-<orgId>-<name as a slug>' }),
  orgId: jsonId(),
  isDisabled: z.boolean(),
  role: z.enum(ORG_ROLES).meta({ description: 'Its org role' }),
  tokens: jsonCount().meta({ description: 'Number of tokens' }),
  avatarUrl: z.string(),
  isManaged: z.boolean().meta({ description: 'Grafana: provisioned by a plugin or app; never here' }),
  accessControl: accessControlJson.optional(),
};

/** Grafana's ServiceAccountDTO. */
export const serviceAccountDto = z.strictObject(serviceAccountFields).meta({ id: 'ServiceAccountDTO' });
export type ServiceAccountJson = z.infer<typeof serviceAccountDto>;

/** Grafana's ServiceAccountProfileDTO (`GET /api/serviceaccounts/:id`, the PATCH answer). */
export const serviceAccountProfileDto = z
  .strictObject({
    ...serviceAccountFields,
    createdAt: jsonTime(),
    updatedAt: jsonTime(),
    teams: z.array(z.string()).meta({ description: 'Names of its teams: always empty, service accounts are not team members' }),
  })
  .meta({ id: 'ServiceAccountProfileDTO' });
export type ServiceAccountProfileJson = z.infer<typeof serviceAccountProfileDto>;

/** The search's parameters: directorySearchQuery's and `disabled` (Grafana's spec spells it `Disabled`, also read). */
const SEARCH_QUERY: readonly QueryParam[] = [
  ...directorySearchQuery('the name (a part of it)'),
  { name: 'disabled', type: 'boolean', description: 'Only disabled accounts' },
  { name: 'Disabled', type: 'boolean', description: 'The same as `disabled`, as Grafana’s OpenAPI document spells it' },
];

/** Loads what the JSON shapes need with each account: its memberships and its token count. */
const WITH_ROLE_AND_TOKENS = {
  include: { orgs: { select: { orgId: true, role: true } }, _count: { select: { tokens: true } } },
} satisfies { include: Prisma.UserInclude };
type LoadedAccount = User & { orgs: { orgId: number; role: string }[]; _count: { tokens: number } };

const BODY_KEYS = ['name', 'role', 'isDisabled'] as const;

/** An account loaded WITH_ROLE_AND_TOKENS as Grafana's ServiceAccountDTO. */
export function serviceAccountToJson(account: LoadedAccount, accessControl?: Record<string, boolean>): ServiceAccountJson {
  return {
    id: account.id,
    name: account.name,
    login: account.login,
    orgId: account.orgId,
    isDisabled: account.isDisabled,
    role: asOrgRole(account.orgs.find((m) => m.orgId === account.orgId)?.role ?? 'None'),
    tokens: account._count.tokens,
    // Grafana derives it from the name: service accounts have no email.
    avatarUrl: avatarUrl('', account.name),
    isManaged: false,
    ...(accessControl && { accessControl }),
  };
}

/** An account loaded WITH_ROLE_AND_TOKENS as Grafana's ServiceAccountProfileDTO. */
export function serviceAccountProfileToJson(account: LoadedAccount, accessControl?: Record<string, boolean>): ServiceAccountProfileJson {
  return {
    ...serviceAccountToJson(account, accessControl),
    createdAt: account.created.toISOString(),
    updatedAt: account.updated.toISOString(),
    teams: [],
  };
}

export const serviceAccountRoutes: Route[] = [
  {
    method: 'GET',
    path: '/api/serviceaccounts/search',
    requires: serviceAccountRequirements.search,
    summary: 'Search the service accounts of the current organization, with paging (query, disabled, page, perpage).',
    query: SEARCH_QUERY,
    response: searchPageSchema('SearchOrgServiceAccountsResult', 'serviceAccounts', serviceAccountDto),
    handler: async ({ principal, services, query }) => {
      // Grafana reads `disabled`; its OpenAPI document spells it `Disabled`.
      const disabled = parseBooleanParam('disabled', query.get('disabled') ?? query.get('Disabled'));
      const page = await services.serviceAccounts.search(principal, { ...directorySearchParams(query), disabled }, WITH_ROLE_AND_TOKENS);
      return searchPageJson(page as SearchPage<LoadedAccount>, 'serviceAccounts', serviceAccountToJson);
    },
  },
  {
    method: 'POST',
    path: '/api/serviceaccounts',
    requires: serviceAccountRequirements.create,
    summary: 'Create a service account in the current organization (ServiceAccountDTO).',
    body: createServiceAccountInput,
    status: 201,
    response: serviceAccountDto,
    handler: async ({ principal, services, body }) => {
      const account = await services.serviceAccounts.create(principal, grafanaBody(body, BODY_KEYS), WITH_ROLE_AND_TOKENS);
      return serviceAccountToJson(account as LoadedAccount);
    },
  },
  {
    method: 'GET',
    path: '/api/serviceaccounts/:id',
    requires: serviceAccountRequirements.read,
    summary: 'One service account of the current organization (ServiceAccountProfileDTO).',
    query: [ACCESS_CONTROL_PARAM],
    response: serviceAccountProfileDto,
    handler: async ({ principal, services, params, query }) => {
      const account = await services.serviceAccounts.get(principal, params.id, WITH_ROLE_AND_TOKENS, {
        accessControl: accessControlParam(query),
      });
      return serviceAccountProfileToJson(account as LoadedAccount, account.accessControl);
    },
  },
  {
    method: 'PATCH',
    path: '/api/serviceaccounts/:id',
    requires: serviceAccountRequirements.write,
    summary: 'Rename, re-role, disable or enable a service account: {message, id, name, serviceaccount}.',
    body: updateServiceAccountInput,
    response: z.strictObject({
      message: z.literal('Service account updated'),
      id: jsonId(),
      name: z.string(),
      serviceaccount: serviceAccountProfileDto,
    }),
    handler: async ({ principal, services, params, body }) => {
      const account = (await services.serviceAccounts.update(
        principal,
        params.id,
        grafanaBody(body, BODY_KEYS),
        WITH_ROLE_AND_TOKENS,
      )) as LoadedAccount;
      return {
        message: 'Service account updated',
        id: account.id,
        name: account.name,
        serviceaccount: serviceAccountProfileToJson(account),
      };
    },
  },
  {
    method: 'DELETE',
    path: '/api/serviceaccounts/:id',
    requires: serviceAccountRequirements.delete,
    summary: 'Delete a service account with its tokens and role assignments.',
    response: messageJson,
    handler: ({ principal, services, params }) => services.serviceAccounts.delete(principal, params.id),
  },
];
