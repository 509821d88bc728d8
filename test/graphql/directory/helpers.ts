/** Setup shared by the directory tests. */
import type { TestApp } from '../../helpers/app.js';

/**
 * Gives `userId` the fixed or custom role `roleName` in `orgId` (0 = global) straight in the
 * database, for callers that hold one permission without its usual org role. Role assignment
 * has its own tests; this is setup only.
 */
export async function grantRole(app: TestApp, userId: number, roleName: string, orgId = 1): Promise<void> {
  const role = await app.database.prisma.role.findFirstOrThrow({ where: { name: roleName } });
  await app.database.prisma.userRole.create({ data: { userId, roleId: role.id, orgId } });
  app.services.access.invalidate();
}

/** A unique suffix per call, so tests sharing one app never collide on names. */
let counter = 0;
export function unique(prefix: string): string {
  counter += 1;
  return `${prefix}-${counter}`;
}
