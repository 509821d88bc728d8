/**
 * Direct-to-database actors for tests that must not depend on the user-management API:
 * a user with an org role in one organization and, optionally, a custom role of its own.
 */
import { hashPassword } from '../../src/auth/passwords.js';
import type { PermissionPair } from '../../src/core/permissions.js';
import type { OrgRole } from '../../src/core/principal.js';
import type { TestApp } from './app.js';

export interface TestUser {
  id: number;
  login: string;
  password: string;
}

let hashed: Promise<string> | undefined;
const PASSWORD = 'test-user-password';

/**
 * Creates a user that is a member of `orgId` (default 1) with `orgRole`; with `permissions`,
 * also a custom org role holding them, assigned to the user directly.
 */
export async function createUser(
  app: TestApp,
  options: { login: string; orgRole: OrgRole; orgId?: number; permissions?: PermissionPair[]; serviceAdmin?: boolean },
): Promise<TestUser> {
  const db = app.database.prisma;
  const orgId = options.orgId ?? 1;
  hashed ??= hashPassword(PASSWORD);
  const user = await db.user.create({
    data: {
      login: options.login,
      email: `${options.login}@example.test`,
      name: options.login,
      passwordHash: await hashed,
      orgId,
      isServiceAdmin: options.serviceAdmin ?? false,
      orgs: { create: { orgId, role: options.orgRole } },
    },
  });
  if (options.permissions) {
    const role = await db.role.create({
      data: { uid: `own-${options.login}`, orgId, name: `own:${options.login}`, permissions: { create: options.permissions } },
    });
    await db.userRole.create({ data: { orgId, userId: user.id, roleId: role.id } });
  }
  app.services.access.invalidate();
  return { id: user.id, login: options.login, password: PASSWORD };
}

/** Creates organization `name` and returns its id. */
export async function createOrg(app: TestApp, name: string): Promise<number> {
  return (await app.database.prisma.org.create({ data: { name } })).id;
}
