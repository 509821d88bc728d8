/**
 * The domain services, wired once per app. GraphQL resolvers and REST handlers reach the core
 * only through this object.
 */
import type { Config } from '../config.js';
import type { Db } from '../platform/database.js';
import { AccessService } from '../kernel/access.js';
import { ApiKeyService } from './api-keys/service.js';
import { AssignmentService } from './assignments/service.js';
import { BasicRoleService } from './roles/reset.js';
import type { Clock } from '../platform/clock.js';
import { OrgService } from './orgs/service.js';
import { RoleService } from './roles/service.js';
import { ServiceAccountService } from './service-accounts/service.js';
import { TeamService } from './teams/service.js';
import { UserService } from './users/service.js';

export interface ServiceDeps {
  db: Db;
  config: Config;
  clock: Clock;
}

export interface Services {
  /** For the Prisma plugin's relation loading only; resolvers go through the services. */
  db: Db;
  access: AccessService;
  roles: RoleService;
  apiKeys: ApiKeyService;
  /** Directory: users, organizations and their members, teams, service accounts. */
  users: UserService;
  orgs: OrgService;
  teams: TeamService;
  serviceAccounts: ServiceAccountService;
  assignments: AssignmentService;
  basicRoles: BasicRoleService;
}

export function createServices(deps: ServiceDeps): Services {
  const access = new AccessService(deps.db);
  const roles = new RoleService({ db: deps.db, access, edition: deps.config.edition });
  const apiKeys = new ApiKeyService({
    db: deps.db,
    access,
    clock: deps.clock,
    edition: deps.config.edition,
    maxSecondsToLive: deps.config.apiKeyMaxSecondsToLive,
  });
  const directory = { db: deps.db, access };
  const assignments = new AssignmentService({ db: deps.db, access, availability: roles });
  const basicRoles = new BasicRoleService({ db: deps.db, access, availability: roles });
  return {
    db: deps.db,
    access,
    roles,
    apiKeys,
    users: new UserService(directory),
    orgs: new OrgService(directory),
    teams: new TeamService(directory),
    serviceAccounts: new ServiceAccountService(directory),
    assignments,
    basicRoles,
  };
}
