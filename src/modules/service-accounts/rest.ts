/**
 * REST door of service accounts, Grafana's paths and shapes (service account routes,
 * public/openapi3.json ServiceAccountDTO, ServiceAccountProfileDTO,
 * SearchOrgServiceAccountsResult): `GET /api/serviceaccounts/search`, `POST /api/serviceaccounts`
 * (201), `GET|PATCH|DELETE /api/serviceaccounts/:id`. Token routes live in
 * modules/service-account-tokens.
 */
import type { Prisma, User } from '../../generated/prisma/client.js';
import { avatarUrl, grafanaBody, type SearchPage, searchPageJson } from '../shared/directory.js';
import { accessControlParam, directorySearchParams, parseBooleanParam, type Route } from '../shared/rest.js';
import { createServiceAccountInput, updateServiceAccountInput } from './inputs.js';
import { serviceAccountRequirements } from './service.js';

/** Grafana's ServiceAccountDTO. */
export interface ServiceAccountJson {
  id: number;
  name: string;
  login: string;
  orgId: number;
  isDisabled: boolean;
  role: string;
  /** Number of tokens. */
  tokens: number;
  avatarUrl: string;
  /** Grafana: provisioned by a plugin or app; never here. */
  isManaged: boolean;
  accessControl?: Record<string, boolean>;
}

/** Grafana's ServiceAccountProfileDTO (`GET /api/serviceaccounts/:id`, the PATCH answer). */
export interface ServiceAccountProfileJson extends ServiceAccountJson {
  createdAt: string;
  updatedAt: string;
  /** Names of its teams: always empty, service accounts are not team members. */
  teams: string[];
}

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
    role: account.orgs.find((m) => m.orgId === account.orgId)?.role ?? 'None',
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
    handler: ({ principal, services, params }) => services.serviceAccounts.delete(principal, params.id),
  },
];
