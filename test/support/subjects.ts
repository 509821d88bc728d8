/**
 * The one subject factory: users, service accounts, organizations, teams, roles, assignments and
 * API keys, and the standard actors every request-level test starts from.
 *
 * Two ways in. Setup that is not what a test is about is written straight to the database with
 * Prisma (`createUser`, `createTeam`, `createRole`, `assignUserRole`, ...); every write that can
 * change someone's permissions calls `access.invalidate()`, as any directory write must
 * (src/kernel/access.ts). The standard actors (`seedFixtures`) and the `...ViaGraphql` factories
 * go through the public GraphQL interface exactly as a client would, so they
 * exercise the same checks as the tests that use them.
 *
 * Standard actors, org 1 ("Main Org."): admin (seeded Service Admin, org Admin), orgAdmin (org
 * Admin, not a Service Admin), editor, viewer, a service account (Viewer), a team with editor and
 * viewer. Org 2: created by admin (who becomes its Admin too, as in Grafana), with its own admin
 * user (member of org 2 only), a team with that admin, and a service account.
 */

import { expect } from 'vitest';
import { fixedRoleUid } from '../../src/kernel/builtin-roles.js';
import type { PermissionPair } from '../../src/kernel/catalogue.js';
import type { OrgRole, UserPrincipal } from '../../src/kernel/principal.js';
import { hashPassword } from '../../src/platform/passwords.js';
import { ADMIN, type Credentials, type TestApp } from './app.js';
import { mustGraphql } from './requests.js';

/** Password of every user created here (hashed once per process). */
export const SUBJECT_PASSWORD = 'subject-test-password';
let passwordHash: Promise<string> | undefined;

/** A user with basic credentials; `{login, password}` is itself usable as `auth`. */
export interface Actor {
  id: number;
  login: string;
  email: string;
  password: string;
  /** Basic credentials of this user. */
  auth: Credentials;
}

/** A unique suffix per call, so tests sharing one app never collide on names. */
let counter = 0;
export function unique(prefix: string): string {
  counter += 1;
  return `${prefix}-${counter}`;
}

// ---- straight to the database -----------------------------------------------------------------

/**
 * A user who is a member of `orgId` (default 1, its default org) with `orgRole` (default
 * Viewer); `alsoIn` adds memberships in other organizations; `permissions` also creates a custom
 * role `own-<login>` of `orgId` holding them and assigns it to the user directly.
 */
export async function createUser(
  app: TestApp,
  login: string,
  options: {
    orgId?: number;
    orgRole?: OrgRole;
    isServiceAdmin?: boolean;
    alsoIn?: { orgId: number; orgRole: OrgRole }[];
    permissions?: PermissionPair[];
  } = {},
): Promise<Actor> {
  passwordHash ??= hashPassword(SUBJECT_PASSWORD);
  const db = app.database.prisma;
  const orgId = options.orgId ?? 1;
  const user = await db.user.create({
    data: {
      login,
      email: `${login}@example.test`,
      name: login,
      orgId,
      passwordHash: await passwordHash,
      isServiceAdmin: options.isServiceAdmin ?? false,
      orgs: {
        create: [{ orgId, role: options.orgRole ?? 'Viewer' }, ...(options.alsoIn ?? []).map((m) => ({ orgId: m.orgId, role: m.orgRole }))],
      },
    },
  });
  if (options.permissions) {
    const role = await createRole(app, `own-${login}`, options.permissions, { orgId, name: `own:${login}` });
    await db.userRole.create({ data: { orgId, userId: user.id, roleId: role.id } });
  }
  app.services.access.invalidate();
  return { id: user.id, login, email: user.email, password: SUBJECT_PASSWORD, auth: { login, password: SUBJECT_PASSWORD } };
}

/** A new organization, with no members. */
export async function createOrg(app: TestApp, name: string): Promise<{ id: number }> {
  return app.database.prisma.org.create({ data: { name }, select: { id: true } });
}

/** Adds `userId` to `orgId` with `orgRole`. */
export async function addOrgMember(app: TestApp, orgId: number, userId: number, orgRole: OrgRole): Promise<void> {
  await app.database.prisma.orgUser.create({ data: { orgId, userId, role: orgRole } });
  app.services.access.invalidate();
}

/** A team of `orgId` (default 1) with `members`. */
export async function createTeam(app: TestApp, name: string, options: { orgId?: number; members?: number[] } = {}) {
  const orgId = options.orgId ?? 1;
  const team = await app.database.prisma.team.create({
    data: { name, orgId, members: { create: (options.members ?? []).map((userId) => ({ userId, orgId })) } },
  });
  app.services.access.invalidate();
  return { id: team.id, orgId, name };
}

/** Adds `userId` to `teamId`. */
export async function addTeamMember(app: TestApp, teamId: number, userId: number): Promise<void> {
  const team = await app.database.prisma.team.findUniqueOrThrow({ where: { id: teamId } });
  await app.database.prisma.teamMember.create({ data: { teamId, userId, orgId: team.orgId } });
  app.services.access.invalidate();
}

/** A custom role written directly (no delegation check): global when `orgId` is 0. */
export async function createRole(
  app: TestApp,
  uid: string,
  permissions: PermissionPair[],
  options: { orgId?: number; hidden?: boolean; name?: string } = {},
) {
  return app.database.prisma.role.create({
    data: {
      uid,
      name: options.name ?? `custom:${uid}`,
      orgId: options.orgId ?? 1,
      hidden: options.hidden ?? false,
      permissions: { create: permissions },
    },
  });
}

/**
 * Assigns `role` to `userId` directly in `orgId` (0 = global), for callers that need one
 * permission without its usual org role. `role` is a role's uid or a fixed role's name
 * ("fixed:apikeys:writer", whose uid is derived as Grafana does).
 */
export async function assignUserRole(app: TestApp, userId: number, role: string, orgId = 1): Promise<void> {
  const uid = role.startsWith('fixed:') ? fixedRoleUid(role) : role;
  const found = await app.database.prisma.role.findUniqueOrThrow({ where: { uid } });
  await app.database.prisma.userRole.create({ data: { userId, roleId: found.id, orgId } });
  app.services.access.invalidate();
}

/** Assigns `roleUid` to `teamId` directly. */
export async function assignTeamRole(app: TestApp, teamId: number, roleUid: string): Promise<void> {
  const [role, team] = await Promise.all([
    app.database.prisma.role.findUniqueOrThrow({ where: { uid: roleUid } }),
    app.database.prisma.team.findUniqueOrThrow({ where: { id: teamId } }),
  ]);
  await app.database.prisma.teamRole.create({ data: { teamId, roleId: role.id, orgId: team.orgId } });
  app.services.access.invalidate();
}

/** The principal `user` is when it signs in to `orgId` with `orgRole` (for core-level calls). */
export function userPrincipal(user: { id: number; login: string }, orgRole: OrgRole, orgId = 1, isServiceAdmin = false): UserPrincipal {
  return { kind: 'user', id: user.id, login: user.login, orgId, orgRole, isServiceAdmin, authMethod: 'basic' };
}

/** p('a:read', 'a:*') */
export const p = (action: string, scope = ''): PermissionPair => ({ action, scope });

// ---- through GraphQL, as a client would --------------------------------------------------------

export type ServiceAccountFixture = { id: number; login: string; name: string; orgId: number; role: string; isDisabled: boolean };
export type TeamFixture = { id: number; name: string; orgId: number; memberIds: number[] };
type AsWho = { auth?: Credentials; orgId?: number };

const CREATE_USER = 'mutation($input: CreateUserInput!) { createUser(input: $input) { id login email } }';
const CREATE_TEAM = 'mutation($input: CreateTeamInput!) { createTeam(input: $input) { id name orgId } }';
const ADD_MEMBER = 'mutation($teamId: Int!, $userId: Int!) { addTeamMember(teamId: $teamId, userId: $userId) { id members { id } } }';
const CREATE_SA = `mutation($input: CreateServiceAccountInput!) {
  createServiceAccount(input: $input) { id login name orgId role isDisabled } }`;
const CREATE_ORG = 'mutation($input: CreateOrganizationInput!) { createOrganization(input: $input) { id name } }';

/** Request options of a setup call: as ADMIN unless `auth`, in `orgId` (X-Service-Org-Id) when given. */
const asWho = ({ auth, orgId }: AsWho): AsWho => ({ ...(auth && { auth }), ...(orgId !== undefined && { orgId }) });

/**
 * A user created with the createUser mutation, joining the request's organization. Login
 * defaults to a unique `user-<n>`, password to `<login>-password`; `input` adds or overrides fields.
 */
export async function createUserViaGraphql(
  app: TestApp,
  options: AsWho & { login?: string; orgRole?: string; input?: Record<string, unknown> } = {},
): Promise<Actor> {
  const login = options.login ?? unique('user');
  const input = {
    login,
    email: `${login}@example.test`,
    password: `${login}-password`,
    ...(options.orgRole !== undefined && { orgRole: options.orgRole }),
    ...options.input,
  };
  const data = await mustGraphql<{ createUser: { id: number } }>(app, CREATE_USER, { input }, asWho(options));
  const password = input.password as string;
  return { id: data.createUser.id, login, email: input.email as string, password, auth: { login, password } };
}

/** A team created with createTeam (name defaults to a unique `team-<n>`), then `memberIds` added with addTeamMember. */
export async function createTeamViaGraphql(
  app: TestApp,
  options: AsWho & { name?: string; email?: string; memberIds?: number[] } = {},
): Promise<TeamFixture> {
  const input = { name: options.name ?? unique('team'), ...(options.email !== undefined && { email: options.email }) };
  const { createTeam: team } = await mustGraphql<{ createTeam: Omit<TeamFixture, 'memberIds'> }>(
    app,
    CREATE_TEAM,
    { input },
    asWho(options),
  );
  const memberIds = options.memberIds ?? [];
  for (const userId of memberIds) await mustGraphql(app, ADD_MEMBER, { teamId: team.id, userId }, asWho(options));
  return { ...team, memberIds };
}

/** A service account created with createServiceAccount (name defaults to a unique `bot-<n>`); `input` adds role etc. */
export async function createServiceAccountViaGraphql(app: TestApp, options: AsWho & { input?: Record<string, unknown> } = {}) {
  const input = { name: unique('bot'), ...options.input };
  const data = await mustGraphql<{ createServiceAccount: ServiceAccountFixture }>(app, CREATE_SA, { input }, asWho(options));
  return data.createServiceAccount;
}

/** An organization created with createOrganization (the caller becomes its Admin); name defaults to a unique `Org-<n>`. */
export async function createOrgViaGraphql(app: TestApp, options: AsWho & { name?: string } = {}) {
  const input = { name: options.name ?? unique('Org') };
  const data = await mustGraphql<{ createOrganization: { id: number; name: string } }>(app, CREATE_ORG, { input }, asWho(options));
  return data.createOrganization;
}

// ---- the standard actors -------------------------------------------------------------------------

export interface Fixtures {
  /** The seeded Service Admin, Admin of org 1 and org 2. */
  admin: Actor;
  /** Admin of org 1, not a Service Admin. */
  orgAdmin: Actor;
  editor: Actor;
  viewer: Actor;
  /** Org role Viewer. */
  serviceAccount: ServiceAccountFixture;
  /** Members: editor and viewer. */
  team: TeamFixture;
  /** `admin` is a member of org 2 only, the only member of `team`; `serviceAccount` has org role Editor. */
  org2: { id: number; name: string; admin: Actor; team: TeamFixture; serviceAccount: ServiceAccountFixture };
}

/** Seeds the standard actors (header) into a fresh test app; costs about 20 GraphQL requests. */
export async function seedFixtures(app: TestApp): Promise<Fixtures> {
  const admin: Actor = { id: 1, login: ADMIN.login, email: `${ADMIN.login}@localhost`, password: ADMIN.password, auth: ADMIN };
  const orgAdmin = await createUserViaGraphql(app, { login: 'org-admin', orgRole: 'Admin' });
  const editor = await createUserViaGraphql(app, { login: 'editor', orgRole: 'Editor' });
  const viewer = await createUserViaGraphql(app, { login: 'viewer', orgRole: 'Viewer' });
  const serviceAccount = await createServiceAccountViaGraphql(app, { input: { name: 'fixture-bot', role: 'Viewer' }, auth: ADMIN });
  const memberIds = [editor.id, viewer.id];
  const team = await createTeamViaGraphql(app, { name: 'fixture-team', email: 'fixture-team@example.test', memberIds, auth: ADMIN });

  const org2 = await createOrgViaGraphql(app, { name: 'Second Org.' });
  // createUser joins the request's organization: act in org 2 through the header.
  const org2Admin = await createUserViaGraphql(app, { login: 'org2-admin', orgRole: 'Admin', orgId: org2.id });
  const org2Auth = org2Admin.auth;
  const org2Team = await createTeamViaGraphql(app, {
    name: 'org2-team',
    email: 'org2-team@example.test',
    memberIds: [org2Admin.id],
    auth: org2Auth,
  });
  const org2ServiceAccount = await createServiceAccountViaGraphql(app, { input: { name: 'org2-bot', role: 'Editor' }, auth: org2Auth });
  return {
    admin,
    orgAdmin,
    editor,
    viewer,
    serviceAccount,
    team,
    org2: { ...org2, admin: org2Admin, team: org2Team, serviceAccount: org2ServiceAccount },
  };
}

// ---- API keys ------------------------------------------------------------------------------------

/** Creates a key over REST (expects 200) and returns `{id, name, key}`. */
export async function createKey(
  app: TestApp,
  body: { name: string; role: string; secondsToLive?: number },
  options: { auth?: Credentials; orgId?: number } = {},
): Promise<{ id: number; name: string; key: string }> {
  const res = await app.request('/api/auth/keys', { method: 'POST', json: body, ...options });
  const json = (await res.json()) as { id: number; name: string; key: string };
  expect(res.status, JSON.stringify(json)).toBe(200);
  return json;
}

/** The two header forms a key may travel in. */
export const keyForms = [
  { form: 'Bearer', auth: (key: string): Credentials => ({ token: key }) },
  { form: 'basic api_key', auth: (key: string): Credentials => ({ login: 'api_key', password: key }) },
] as const;
