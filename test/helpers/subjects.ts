/**
 * Subjects written straight to the database with Prisma, for setup that is not what a test is
 * about: users, service accounts, organizations and memberships, teams and members, custom
 * roles and direct assignments. Tests that need the standard actors (admin, editor, viewer,
 * service account, team, second organization) seed them through GraphQL instead
 * (fixtures.ts). Every write that can change someone's permissions calls
 * `access.invalidate()`, as any directory write must (src/core/access.ts).
 */
import { hashPassword } from '../../src/platform/passwords.js';
import { fixedRoleUid } from '../../src/kernel/builtin-roles.js';
import type { PermissionPair } from '../../src/kernel/catalogue.js';
import type { OrgRole, UserPrincipal } from '../../src/kernel/principal.js';
import type { Credentials, TestApp } from './app.js';

/** Password of every user created here (hashed once per process). */
export const SUBJECT_PASSWORD = 'subject-test-password';
let passwordHash: Promise<string> | undefined;

/** A user with basic credentials; `{login, password}` is itself usable as `auth`. */
export interface TestUser {
  id: number;
  login: string;
  password: string;
  /** Basic credentials of this user. */
  auth: Credentials;
}

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
): Promise<TestUser> {
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
  return { id: user.id, login, password: SUBJECT_PASSWORD, auth: { login, password: SUBJECT_PASSWORD } };
}

/** A service account (User row with isServiceAccount, no password) of `orgId` with `orgRole`. */
export async function createServiceAccount(app: TestApp, name: string, options: { orgId?: number; orgRole?: OrgRole } = {}) {
  const orgId = options.orgId ?? 1;
  const account = await app.database.prisma.user.create({
    data: {
      login: `sa-${orgId}-${name}`,
      email: `sa-${orgId}-${name}@serviceaccount.test`,
      name,
      orgId,
      isServiceAccount: true,
      orgs: { create: { orgId, role: options.orgRole ?? 'Viewer' } },
    },
  });
  app.services.access.invalidate();
  return { id: account.id, login: account.login };
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
