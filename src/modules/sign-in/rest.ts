/**
 * REST door of the signed-in user's own account (Grafana's /api/user routes): profile,
 * organizations, organization switch, password change. Any signed-in user.
 */
import { type CountedTeam, teamToJson, WITH_MEMBER_COUNT } from '../shared/directory.js';
import type { Route } from '../shared/rest.js';
import { userProfileJson } from '../users/rest.js';
import { changePasswordInput, type SignedInUser } from './service.js';

/**
 * `GET /api/user`: Grafana's UserProfileDTO (pkg/services/user/model.go; the same shape as
 * `GET /api/users/:id`, users/rest.ts) with `orgId` the organization the request acts in, plus
 * `isServiceAdmin`, this service's own name of `isGrafanaAdmin`, kept for its earlier clients.
 * `accessControl` is left out, as Grafana leaves it out unless asked for.
 */
function signedInUserJson({ user, orgId }: SignedInUser) {
  return { ...userProfileJson(user), orgId, isServiceAdmin: user.isServiceAdmin };
}

export const signInRoutes: Route[] = [
  {
    method: 'GET',
    path: '/api/user',
    requires: 'signed-in',
    summary: 'The signed-in user',
    handler: async ({ principal, services }) => signedInUserJson(await services.ownAccount.currentUser(principal)),
  },
  {
    method: 'GET',
    path: '/api/user/orgs',
    requires: 'signed-in',
    summary: 'The organizations of the signed-in user',
    handler: ({ principal, services }) => services.ownAccount.ownOrgs(principal),
  },
  {
    method: 'GET',
    path: '/api/user/teams',
    requires: 'signed-in',
    summary: 'The teams of the signed-in user in the organization it acts in',
    handler: async ({ principal, services }) =>
      ((await services.teams.ofCaller(principal, WITH_MEMBER_COUNT)) as CountedTeam[]).map((team) => teamToJson(team)),
  },
  {
    method: 'POST',
    path: '/api/user/using/:orgId',
    requires: 'signed-in',
    summary: 'Switch the signed-in user’s current (and default) organization',
    handler: ({ principal, services, params }) => services.ownAccount.switchOrg(principal, params.orgId),
  },
  {
    method: 'PUT',
    path: '/api/user/password',
    requires: 'signed-in',
    summary: 'Change the signed-in user’s password; other sessions end',
    body: changePasswordInput,
    // Wrong old passwords count against the login and the client address, like failed logins.
    handler: ({ principal, services, body, clientAddress }) => services.ownAccount.changePassword(principal, body, clientAddress),
  },
];
