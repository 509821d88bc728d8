/**
 * The route table: every REST route of the service (each feature's table) and the browser's
 * sign-in routes, each with the requirement it declares; mounted by the router (rest-door.ts, router.ts).
 */
import { accessRequestRoutes } from '../modules/access-requests/rest.js';
import { accessReviewRoutes } from '../modules/access-review/rest.js';
import { apiKeyRoutes } from '../modules/api-keys/rest.js';
import { assignmentRoutes } from '../modules/assignments/rest.js';
import { auditRoutes } from '../modules/audit/rest.js';
import { changeRoutes } from '../modules/changes/rest.js';
import { ldapRoutes } from '../modules/ldap/rest.js';
import { orgRoutes } from '../modules/orgs/rest.js';
import { permissionRoutes } from '../modules/permissions/rest.js';
import { productRoutes } from '../modules/products/rest.js';
import { provisioningRoutes } from '../modules/provisioning/rest.js';
import { roleRoutes } from '../modules/roles/rest.js';
import { serviceAccountTokenRoutes } from '../modules/service-account-tokens/rest.js';
import { serviceAccountRoutes } from '../modules/service-accounts/rest.js';
import { sessionRoutes } from '../modules/sessions/rest.js';
import type { Route } from '../modules/shared/rest.js';
import { signInRoutes } from '../modules/sign-in/rest.js';
import { simulationRoutes } from '../modules/simulation/rest.js';
import { teamRoutes } from '../modules/teams/rest.js';
import { userRoutes } from '../modules/users/rest.js';
import { browserSignInRoutes } from './sign-in-routes.js';

export const routes: Route[] = [
  ...roleRoutes,
  ...assignmentRoutes,
  ...permissionRoutes,
  ...simulationRoutes,
  ...apiKeyRoutes,
  ...productRoutes,
  ...provisioningRoutes,
  ...signInRoutes,
  ...sessionRoutes,
  ...serviceAccountTokenRoutes,
  ...teamRoutes,
  ...serviceAccountRoutes,
  ...ldapRoutes,
  ...auditRoutes,
  ...changeRoutes,
  ...accessReviewRoutes,
  ...accessRequestRoutes,
  ...userRoutes,
  ...orgRoutes,
  ...browserSignInRoutes,
];
