/**
 * Seeds what must always exist: organization 1 "Main Org.", the basic roles
 * with their default permissions and their grants, the fixed roles, and the first Service Admin.
 *
 * Idempotent: a restart changes nothing. Basic roles are created once and then left alone (an
 * operator may have edited them; "reset basic roles" restores the defaults). Fixed roles belong
 * to the service, so their permissions are brought back to the definition in code on every start.
 */

import { randomBytes } from 'node:crypto';
import type { Db, Tx } from '../platform/database.js';
import { afterExplicitIds } from '../platform/database-dialect.js';
import type { Notice } from '../platform/notice.js';
import { hashPassword } from '../platform/passwords.js';
import { BASIC_ROLES, type BuiltinRole, FIXED_ROLES } from './builtin-roles.js';
import { bumpedVersion } from './role-version.js';

export const MAIN_ORG_ID = 1;
export const MAIN_ORG_NAME = 'Main Org.';

/**
 * Milliseconds the seed's one transaction may run (Prisma's interactive-transaction `timeout`,
 * 5 s by default). A fresh database gets every built-in role with its permissions: hundreds of
 * statements, which on a loaded machine or a PostgreSQL server a few milliseconds away took more
 * than 5 s (P2028), and the service then did not start. It runs once per start, before the
 * service listens; on a database seeded before (every restart, every further replica) it mostly
 * reads and writes what changed, so it holds the write lock briefly.
 */
const SEED_TIMEOUT_MS = 120_000;

export interface SeedOptions {
  adminLogin: string;
  /** Used as given; when undefined a random one is generated (never `admin`). */
  adminPassword: string | undefined;
  log?: (msg: string, fields?: object) => void;
}

export interface SeedResult {
  createdAdmin: boolean;
  createdRoles: string[];
  updatedFixedRoles: string[];
  /**
   * The generated first admin password, set only when the admin was created without
   * ADMIN_PASSWORD. The caller shows it once with firstAdminNotice; the seed's own log line
   * never holds it.
   */
  generatedAdminPassword?: string;
  /**
   * True when ADMIN_PASSWORD was given but the Service Admin already existed, so the password was
   * not used (it is set only on creation); the server warns with adminPasswordIgnoredNotice.
   */
  adminPasswordIgnored?: true;
}

function samePermissions(a: { action: string; scope: string }[], b: { action: string; scope: string }[]): boolean {
  const key = (p: { action: string; scope: string }) => `${p.action}\u0000${p.scope}`;
  const left = new Set(a.map(key));
  return left.size === new Set(b.map(key)).size && b.every((p) => left.has(key(p)));
}

async function ensureRole(tx: Tx, def: BuiltinRole, syncPermissions: boolean, result: SeedResult): Promise<number> {
  const existing = await tx.role.findUnique({ where: { uid: def.uid }, include: { permissions: true } });
  if (!existing) {
    const created = await tx.role.create({
      data: {
        uid: def.uid,
        orgId: 0,
        name: def.name,
        displayName: def.displayName,
        description: def.description,
        group: def.group,
        hidden: def.hidden,
        permissions: { create: def.permissions },
      },
    });
    result.createdRoles.push(def.name);
    return created.id;
  }
  if (syncPermissions && !samePermissions(existing.permissions, def.permissions)) {
    await tx.permission.deleteMany({ where: { roleId: existing.id } });
    await tx.permission.createMany({ data: def.permissions.map((p) => ({ ...p, roleId: existing.id })) });
    await tx.role.update({ where: { id: existing.id }, data: { version: bumpedVersion(existing.version) } });
    result.updatedFixedRoles.push(def.name);
  }
  return existing.id;
}

/** The command that sets the password of `login` (src/cli/users.ts, `user set-password`). */
export function setPasswordCommand(login: string): string {
  return `npx portcullis user set-password --login ${login} --password '<new password>'`;
}

/**
 * The one-time notice of a generated first admin password (platform/notice.ts shows it): the
 * login, the password and the command that changes it. Shown on a terminal or as one log line.
 */
export function firstAdminNotice(login: string, password: string): Notice {
  return {
    msg: `created the first Service Admin "${login}" with a generated password, shown only now (ADMIN_PASSWORD chooses it at the first start)`,
    fields: { login, password, change: setPasswordCommand(login) },
  };
}

/**
 * The start's warning when ADMIN_PASSWORD is set but the Service Admin `login` already exists:
 * the variable is ignored (a newcomer's first request then answers 401), and how to change the
 * password instead. Names no password.
 */
export function adminPasswordIgnoredNotice(login: string): Notice {
  return {
    msg: `ADMIN_PASSWORD is ignored: the Service Admin "${login}" already exists in this database, and ADMIN_PASSWORD only sets the password when it is created`,
    fields: {
      login,
      change: `${setPasswordCommand(login)} (on this machine)`,
      or: `PUT /api/user/password {"oldPassword", "newPassword"} signed in as ${login}; or start with a new database (DATABASE_URL)`,
    },
  };
}

/**
 * Runs the seed in one transaction.
 * @returns what was created or changed (all empty on a restart).
 */
export async function seed(db: Db, options: SeedOptions): Promise<SeedResult> {
  const result: SeedResult = { createdAdmin: false, createdRoles: [], updatedFixedRoles: [] };
  // Hash outside the transaction: it is slow and needs no lock.
  const adminExists = (await db.user.count({ where: { login: options.adminLogin } })) > 0;
  const generated = adminExists || options.adminPassword !== undefined ? undefined : randomBytes(18).toString('base64url');
  const adminHash = adminExists ? null : await hashPassword(options.adminPassword ?? (generated as string));

  await db.$transaction(
    async (tx) => {
      if (!(await tx.org.findUnique({ where: { id: MAIN_ORG_ID } }))) {
        await tx.org.create({ data: { id: MAIN_ORG_ID, name: MAIN_ORG_NAME } });
        await afterExplicitIds(db, tx, 'Org');
      }
      for (const def of BASIC_ROLES) {
        const roleId = await ensureRole(tx, def, false, result);
        await tx.basicRoleGrant.upsert({
          where: { basicRole_orgId_roleId: { basicRole: def.basicRole, orgId: 0, roleId } },
          create: { basicRole: def.basicRole, orgId: 0, roleId },
          update: {},
        });
      }
      for (const def of FIXED_ROLES) await ensureRole(tx, def, true, result);

      if (adminHash !== null && !(await tx.user.findUnique({ where: { login: options.adminLogin } }))) {
        const admin = await tx.user.create({
          data: {
            login: options.adminLogin,
            email: options.adminLogin.includes('@') ? options.adminLogin : `${options.adminLogin}@localhost`,
            name: options.adminLogin,
            passwordHash: adminHash,
            isServiceAdmin: true,
            orgId: MAIN_ORG_ID,
          },
        });
        await tx.orgUser.create({ data: { orgId: MAIN_ORG_ID, userId: admin.id, role: 'Admin' } });
        result.createdAdmin = true;
      }
    },
    { timeout: SEED_TIMEOUT_MS },
  );
  options.log?.('seed complete', result);
  if (result.createdAdmin && generated !== undefined) return { ...result, generatedAdminPassword: generated };
  return adminExists && options.adminPassword !== undefined ? { ...result, adminPasswordIgnored: true } : result;
}
