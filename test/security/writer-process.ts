/**
 * A second process on the test's database (two-process.test.ts): writes through the module
 * services and the one write path, as the CLI or a second server would.
 *   demote <databaseUrl> <userId>        org role of the user in org 1 becomes Viewer
 *   churn <databaseUrl> <roleId> <count> adds and removes a permission of the role, count times
 * Prints one JSON line: {"ok": <writes done>, "failed": [<error messages>]}.
 */
import { loadConfig } from '../../src/config.js';
import { localOperator } from '../../src/kernel/principal.js';
import { createServices } from '../../src/modules/services.js';
import { systemClock } from '../../src/platform/clock.js';
import { openDatabase } from '../../src/platform/database.js';

const [mode, databaseUrl, id, count] = process.argv.slice(2);
// The test's server has migrated the file already (and keeps it open).
const database = await openDatabase({ databaseUrl: databaseUrl as string, migrate: false });
const config = loadConfig({ DATABASE_URL: databaseUrl, ADMIN_PASSWORD: 'unused-by-this-process', LOG_LEVEL: 'silent' });
const services = createServices({ db: database.prisma, config, clock: systemClock });
let ok = 0;
const failed: string[] = [];
if (mode === 'demote') {
  await services.orgMembers.updateUserRole(localOperator(1), { orgId: 1, userId: Number(id), role: 'Viewer' });
  ok++;
} else {
  for (let i = 0; i < Number(count); i++) {
    try {
      await services.access.write(async (tx) => {
        await tx.permission.create({ data: { roleId: Number(id), action: `churn:b${i}`, scope: '' } });
        await tx.permission.deleteMany({ where: { roleId: Number(id), action: `churn:b${i}` } });
      });
      ok++;
    } catch (error) {
      failed.push((error as Error).message.slice(0, 200));
    }
  }
}
process.stdout.write(`${JSON.stringify({ ok, failed })}\n`);
await database.close();
