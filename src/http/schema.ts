/** The GraphQL schema: the shared types, then every feature's graphql.ts, then build. */
import { builder } from '../modules/shared/builder.js';
import '../modules/shared/scalars.js';
import '../modules/shared/message.js';
import '../modules/shared/permission.js';
import '../modules/shared/org-role.js';
import '../modules/roles/graphql.js';
import '../modules/orgs/graphql.js';
import '../modules/users/graphql.js';
import '../modules/service-accounts/graphql.js';
import '../modules/teams/graphql.js';
import '../modules/permissions/graphql.js';
import '../modules/permissions/batch-graphql.js';
import '../modules/api-keys/graphql.js';
import '../modules/assignments/graphql.js';
import '../modules/sessions/graphql.js';
import '../modules/service-account-tokens/graphql.js';
import '../modules/products/graphql.js';
import '../modules/provisioning/graphql.js';
import '../modules/audit/graphql.js';
import '../modules/changes/graphql.js';
import '../modules/access-review/graphql.js';
import '../modules/simulation/graphql.js';
import '../modules/access-requests/graphql.js';

export const schema = builder.toSchema({ sortSchema: true });
