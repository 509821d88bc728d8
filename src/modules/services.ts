/**
 * The feature services, wired once per app (and once per CLI run). GraphQL resolvers, REST
 * handlers and CLI commands reach the features only through this object.
 */
import { AccessService } from '../kernel/access.js';
import { type Edition, editionGuard } from '../kernel/edition.js';
import type { Clock } from '../platform/clock.js';
import type { Db } from '../platform/database.js';
import { ApiKeyService } from './api-keys/service.js';
import { SubjectAssignments, teamStore, userStore } from './assignments/service.js';
import { OrgService } from './orgs/service.js';
import { PermissionService } from './permissions/service.js';
import { BasicRoleService } from './roles/reset.js';
import { RoleService } from './roles/service.js';
import { ServiceAccountService } from './service-accounts/service.js';
import { TeamService } from './teams/service.js';
import { UserService } from './users/service.js';

/** The slice of configuration the features read. */
export interface FeatureConfig {
  edition: Edition;
  /** `API_KEY_MAX_SECONDS_TO_LIVE`: when set, every key must expire within it. */
  apiKeyMaxSecondsToLive: number | undefined;
}

export interface ServiceDeps {
  db: Db;
  config: FeatureConfig;
  clock: Clock;
}

export interface Services {
  /** For the Prisma plugin's relation loading only; resolvers go through the services. */
  db: Db;
  access: AccessService;
  roles: RoleService;
  basicRoles: BasicRoleService;
  /** Role assignments of users and service accounts (one `userId`), and of teams. */
  userRoles: SubjectAssignments;
  teamRoles: SubjectAssignments;
  permissions: PermissionService;
  apiKeys: ApiKeyService;
  users: UserService;
  orgs: OrgService;
  teams: TeamService;
  serviceAccounts: ServiceAccountService;
}

/** Builds every feature service on one database, access service and edition guard. */
export function createServices(deps: ServiceDeps): Services {
  const access = new AccessService(deps.db);
  const feature = { db: deps.db, access, edition: editionGuard(deps.config.edition) };
  return {
    db: deps.db,
    access,
    roles: new RoleService(feature),
    basicRoles: new BasicRoleService(feature),
    userRoles: new SubjectAssignments(feature, userStore),
    teamRoles: new SubjectAssignments(feature, teamStore),
    permissions: new PermissionService(feature),
    apiKeys: new ApiKeyService({ ...feature, clock: deps.clock, maxSecondsToLive: deps.config.apiKeyMaxSecondsToLive }),
    users: new UserService(feature),
    orgs: new OrgService(feature),
    teams: new TeamService(feature),
    serviceAccounts: new ServiceAccountService(feature),
  };
}
