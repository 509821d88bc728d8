/**
 * The feature services, wired once per app (and once per CLI run). GraphQL resolvers, REST
 * handlers and CLI commands reach the features only through this object.
 */
import { AccessService } from '../kernel/access.js';
import { type Edition, editionGuard } from '../kernel/edition.js';
import type { Clock } from '../platform/clock.js';
import type { Db } from '../platform/database.js';
import type { Logger } from '../platform/logger.js';
import { type PasswordVerifier, verifyPassword } from '../platform/passwords.js';
import { AccessRequestDecisions } from './access-requests/decisions.js';
import { AccessRequestExpiry } from './access-requests/expiry.js';
import { AccessRequestService, type AccessRequestSettings } from './access-requests/service.js';
import { AccessReviewService } from './access-review/service.js';
import { ApiKeyService } from './api-keys/service.js';
import { AssignmentBoundaries, SubjectAssignments, teamStore, userStore } from './assignments/service.js';
import { AuditService } from './audit/service.js';
import { ChangeFeedService } from './changes/service.js';
import { ChangeStreams } from './changes/streams.js';
import { LdapService } from './ldap/service.js';
import { OAuthService, type OAuthSettings } from './oauth/service.js';
import { OrgMemberService } from './orgs/members.js';
import { OrgService } from './orgs/service.js';
import { PermissionService } from './permissions/service.js';
import { ProductService } from './products/service.js';
import { ProvisioningService } from './provisioning/service.js';
import { BasicRoleService } from './roles/reset.js';
import { RoleService } from './roles/service.js';
import { ServiceAccountTokenService } from './service-account-tokens/service.js';
import { ServiceAccountService } from './service-accounts/service.js';
import { SessionService, type SessionSettings } from './sessions/service.js';
import { counterStoreFor } from './sign-in/counter-stores.js';
import { OwnAccountService } from './sign-in/own-account.js';
import { SignInService } from './sign-in/service.js';
import { LoginThrottle, type ThrottleSettings } from './sign-in/throttle.js';
import { VerifiedPasswords } from './sign-in/verified-passwords.js';
import { SimulationService } from './simulation/service.js';
import { TeamService } from './teams/service.js';
import { UserAdminService } from './users/admin.js';
import { UserSearchService } from './users/search.js';
import { UserService } from './users/service.js';

/** The slice of configuration the features read. */
export interface FeatureConfig {
  edition: Edition;
  /** `API_KEY_MAX_SECONDS_TO_LIVE`: when set, every key must expire within it. */
  apiKeyMaxSecondsToLive: number | undefined;
  /** `CHANGES_RETENTION_HOURS`: how long the change feed keeps each change. */
  changesRetentionHours: number;
  /** ACCESS_REQUEST_EXPIRY_SECONDS, ACCESS_REQUEST_MAX_SECONDS. */
  accessRequests: AccessRequestSettings;
  /** Sessions, brute-force protection, LDAP (path of ldap.toml) and OAuth (src/config-auth.ts). */
  auth: SessionSettings & {
    bruteForce: ThrottleSettings | null;
    ldapConfigFile: string | null;
    oauth: OAuthSettings | null;
    /** AUTH_OAUTH_ALLOW_INSECURE_EMAIL_LOOKUP. */
    oauthAllowInsecureEmailLookup: boolean;
    /** BASIC_AUTH_CACHE_SECONDS (sign-in/verified-passwords.ts); 0: off. */
    basicAuthCacheSeconds: number;
  };
  /** `PROVISIONING_PATH`: RBAC provisioning files (access-control/, plugins/). */
  provisioningPath: string;
}

export interface ServiceDeps {
  db: Db;
  config: FeatureConfig;
  clock: Clock;
  /** Where services log what they keep from callers (which LDAP server failed, a failed last-seen write). */
  log?: Logger;
  /** Checks passwords (default: platform/passwords.ts verifyPassword); tests count or hold the checks through it. */
  verifyPassword?: PasswordVerifier;
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
  /** The start and end of time-bound assignments as audit events and change records. */
  assignmentBoundaries: AssignmentBoundaries;
  permissions: PermissionService;
  /** What-if: what proposed changes would do to who may do what, written nowhere. */
  simulation: SimulationService;
  /** Product role registration (plugins:<productId>:*) and RBAC provisioning files. */
  products: ProductService;
  provisioning: ProvisioningService;
  apiKeys: ApiKeyService;
  users: UserService;
  /** A user's password, Service Admin flag, disabled state and default organization. */
  userAdmin: UserAdminService;
  /** User search pages (with last-seen times) and lookup by login or email. */
  userSearch: UserSearchService;
  orgs: OrgService;
  /** Members of organizations and their org roles. */
  orgMembers: OrgMemberService;
  teams: TeamService;
  serviceAccounts: ServiceAccountService;
  serviceAccountTokens: ServiceAccountTokenService;
  /** Reading the audit log (each service writes its own events). */
  audit: AuditService;
  /** The change feed (kernel/changes.ts writes it) and read-your-writes' revision check. */
  changes: ChangeFeedService;
  /** The change feed's open streams (GraphQL subscription accessChanges). */
  changeStreams: ChangeStreams;
  /** Who has which access and why, paged and exported (an auditor's questions). */
  accessReview: AccessReviewService;
  /** Just-in-time access requests: asked for, listed and cancelled; approved or denied; expired. */
  accessRequests: AccessRequestService;
  accessRequestDecisions: AccessRequestDecisions;
  accessRequestExpiry: AccessRequestExpiry;
  /** Password checks, external users and the principal of a signed-in user. */
  signIn: SignInService;
  /** The failed-login counters (`shared`: whether every process on the database counts in them). */
  loginThrottle: LoginThrottle;
  /** The signed-in user's own account (`/api/user*`): profile, organizations, switch, password. */
  ownAccount: OwnAccountService;
  sessions: SessionService;
  ldap: LdapService;
  oauth: OAuthService;
}

/** Builds every feature service on one database, access service and edition guard. */
export function createServices(deps: ServiceDeps): Services {
  const access = new AccessService(deps.db, undefined, deps.clock);
  const feature = { db: deps.db, access, edition: editionGuard(deps.config.edition), clock: deps.clock };
  const { auth } = deps.config;
  const ldap = new LdapService(auth.ldapConfigFile, access, deps.log);
  const changes = new ChangeFeedService({ ...feature, clock: deps.clock, retentionHours: deps.config.changesRetentionHours });
  // One throttle for sign-in, the own password change and the administrator's unlock: the same counters.
  const throttle = new LoginThrottle(auth.bruteForce, counterStoreFor(deps.db));
  const signInDeps = {
    ...feature,
    throttle,
    verifyPassword: deps.verifyPassword ?? verifyPassword,
  };
  const userRoles = new SubjectAssignments(feature, userStore);
  const requestDeps = { ...feature, settings: deps.config.accessRequests };
  return {
    db: deps.db,
    access,
    roles: new RoleService(feature),
    basicRoles: new BasicRoleService(feature),
    userRoles,
    teamRoles: new SubjectAssignments(feature, teamStore),
    assignmentBoundaries: new AssignmentBoundaries({ ...feature, retentionHours: deps.config.changesRetentionHours }),
    permissions: new PermissionService(feature),
    simulation: new SimulationService(feature),
    products: new ProductService(feature),
    provisioning: new ProvisioningService(feature, deps.config.provisioningPath),
    apiKeys: new ApiKeyService({ ...feature, clock: deps.clock, maxSecondsToLive: deps.config.apiKeyMaxSecondsToLive }),
    users: new UserService(feature),
    userAdmin: new UserAdminService({ ...feature, loginLocks: throttle }),
    userSearch: new UserSearchService({ ...feature, clock: deps.clock }),
    orgs: new OrgService(feature),
    orgMembers: new OrgMemberService(feature),
    teams: new TeamService(feature),
    serviceAccounts: new ServiceAccountService(feature),
    serviceAccountTokens: new ServiceAccountTokenService({
      ...feature,
      clock: deps.clock,
      maxSecondsToLive: deps.config.apiKeyMaxSecondsToLive,
    }),
    audit: new AuditService(feature),
    changes,
    changeStreams: new ChangeStreams({ db: deps.db, access, changes }),
    accessReview: new AccessReviewService({ ...feature, clock: deps.clock }),
    accessRequests: new AccessRequestService(requestDeps),
    accessRequestDecisions: new AccessRequestDecisions({ ...requestDeps, userRoles }),
    accessRequestExpiry: new AccessRequestExpiry({ ...feature, retentionHours: deps.config.changesRetentionHours }),
    signIn: new SignInService({
      ...signInDeps,
      directory: ldap.enabled ? ldap : null,
      allowInsecureEmailLookup: auth.oauthAllowInsecureEmailLookup,
      verifiedPasswords: new VerifiedPasswords(access.freshness, { ttlSeconds: auth.basicAuthCacheSeconds, maxEntries: 10_000 }),
      clock: deps.clock,
    }),
    ownAccount: new OwnAccountService(signInDeps),
    loginThrottle: throttle,
    sessions: new SessionService({ ...feature, clock: deps.clock, settings: auth, ...(deps.log && { log: deps.log }) }),
    ldap,
    oauth: new OAuthService(auth.oauth),
  };
}
