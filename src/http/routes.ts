/** Every REST route of the service: each feature's route table, mounted by useRestRoutes. */
import { apiKeyRoutes } from '../modules/api-keys/rest.js';
import { assignmentRoutes } from '../modules/assignments/rest.js';
import { permissionRoutes } from '../modules/permissions/rest.js';
import { roleRoutes } from '../modules/roles/rest.js';
import type { Route } from '../modules/shared/rest.js';

export const routes: Route[] = [...roleRoutes, ...assignmentRoutes, ...permissionRoutes, ...apiKeyRoutes];
