/**
 * ADMIN_PASSWORD on a database whose Service Admin already exists:
 * the seed reports the password as ignored, the real server warns once at start, naming no
 * password and saying how to change it, and the CLI command it names does change it while the
 * server runs.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/index.js';
import { adminPasswordIgnoredNotice, seed } from '../../src/kernel/seed.js';
import { openDatabase } from '../../src/platform/database.js';
import { killServers, startServer, stopServer } from '../support/server.js';

const dir = mkdtempSync(join(tmpdir(), 'portcullis-admin-password-'));
const DATABASE_URL = `file:${join(dir, 'portcullis.db')}`;
const FIRST = 'first-start-password';
const LATER = 'later-start-password';

afterEach(killServers);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A basic-auth request of the admin to the server on `port`: its status. */
async function adminStatus(port: number, password: string): Promise<number> {
  const auth = `Basic ${Buffer.from(`admin:${password}`).toString('base64')}`;
  return (await fetch(`http://127.0.0.1:${port}/api/user`, { headers: { authorization: auth } })).status;
}

describe('ADMIN_PASSWORD when the Service Admin exists', () => {
  it('the seed says the password was ignored only when one was given for an existing admin', async () => {
    const database = await openDatabase({ databaseUrl: DATABASE_URL });
    try {
      const created = await seed(database.prisma, { adminLogin: 'admin', adminPassword: FIRST });
      expect(created).toMatchObject({ createdAdmin: true });
      expect(created.adminPasswordIgnored).toBeUndefined();
      expect(await seed(database.prisma, { adminLogin: 'admin', adminPassword: LATER })).toEqual({
        createdAdmin: false,
        createdRoles: [],
        updatedFixedRoles: [],
        adminPasswordIgnored: true,
      });
      expect((await seed(database.prisma, { adminLogin: 'admin', adminPassword: undefined })).adminPasswordIgnored).toBeUndefined();
    } finally {
      await database.close();
    }
    const notice = adminPasswordIgnoredNotice('admin');
    expect(notice.msg).toContain('ADMIN_PASSWORD is ignored: the Service Admin "admin" already exists');
    expect(notice.fields.change).toContain("npx portcullis user set-password --login admin --password '<new password>'");
    expect(notice.fields.or).toContain('PUT /api/user/password');
  });

  it('the server warns at start without the password; the CLI it names changes the password', async () => {
    const server = await startServer({ DATABASE_URL, ADMIN_PASSWORD: LATER }, { as: 'image' });
    const lines = server
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { level: number; msg: string; login?: string });
    const warnings = lines.filter((l) => l.level === 40);
    const { msg, fields } = adminPasswordIgnoredNotice('admin');
    expect(warnings).toEqual([expect.objectContaining({ ...fields, msg })]);
    expect(server.output()).not.toContain(LATER);
    expect(await adminStatus(server.port, LATER)).toBe(401);
    expect(await adminStatus(server.port, FIRST)).toBe(200);

    let stdout = '';
    let stderr = '';
    const io = {
      stdout: (t: string) => {
        stdout += t;
      },
      stderr: (t: string) => {
        stderr += t;
      },
      env: { DATABASE_URL },
    };
    expect(await runCli(['user', 'set-password', '--login', 'admin', '--password', LATER], io), stderr).toBe(0);
    expect(JSON.parse(stdout)).toEqual({ id: expect.any(Number), login: 'admin', message: 'User password updated' });
    expect(await adminStatus(server.port, LATER)).toBe(200);
    expect(await adminStatus(server.port, FIRST)).toBe(401);

    stderr = '';
    expect(await runCli(['user', 'set-password', '--login', 'nobody', '--password', 'x-password'], io)).toBe(1);
    expect(stderr).toContain('USER_NOT_FOUND');
    expect(await stopServer(server)).toBe(0);
  }, 120_000);
});
