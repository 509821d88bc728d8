/**
 * Provisioning at start: the real entry (`npm start`) applies the files under
 * PROVISIONING_PATH after migrate + seed; a broken file stops the start with the file, line,
 * path and problem on stderr, and the database keeps nothing of it.
 */
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Db, openDatabase } from '../../src/platform/database.js';
import { ownDatabaseUrl, type TestDatabase } from '../support/postgres.js';

const root = new URL('../..', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'portcullis-prov-start-'));
/** The server's database: a SQLite file in `dir`, or an empty PostgreSQL database (test:postgres). */
let database: TestDatabase;
beforeAll(async () => {
  database = await ownDatabaseUrl(join(dir, 'data/prov.db'));
});
afterAll(async () => {
  await database?.drop();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs the entry until it logs "listening" (then stops it) or exits; answers exit code and output. */
function run(provisioning: string): Promise<{ code: number | null; out: string }> {
  const proc = spawn(process.execPath, [join(root, 'node_modules/tsx/dist/cli.mjs'), join(root, 'src/main.ts')], {
    cwd: dir,
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      DATABASE_URL: database.url,
      ADMIN_LOGIN: 'root',
      ADMIN_PASSWORD: 'prov-password',
      LOG_LEVEL: 'info',
      PROVISIONING_PATH: provisioning,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve) => {
    let out = '';
    let signalled = false;
    const timer = setTimeout(() => proc.kill('SIGKILL'), 60_000);
    const collect = (chunk: Buffer) => {
      out += chunk.toString();
      // The server process itself (its pid is on the line), not tsx's launcher (support/server.ts stopServer).
      const line = out.split('\n').find((l) => l.includes('listening'));
      if (line && !signalled) {
        signalled = true;
        process.kill((JSON.parse(line) as { pid: number }).pid, 'SIGTERM');
      }
    };
    proc.stdout?.on('data', collect);
    proc.stderr?.on('data', collect);
    proc.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

/** Runs `fn` on the server's database (already migrated by the server's first start). */
async function onDatabase<T>(fn: (db: Db) => Promise<T>): Promise<T> {
  const opened = await openDatabase({ databaseUrl: database.url, migrate: false });
  try {
    return await fn(opened.prisma);
  } finally {
    await opened.close();
  }
}

const roleCount = (name: string) => onDatabase((db) => db.role.count({ where: { name } }));

// Each case starts the real server (tsx) once or twice: seconds each, more on a busy machine.
describe('provisioning at start', { timeout: 120_000 }, () => {
  it('a broken file stops the start naming file, line, path and problem; nothing is kept', async () => {
    const bad = join(dir, 'bad');
    mkdirSync(join(bad, 'access-control'), { recursive: true });
    writeFileSync(join(bad, 'access-control', 'a.yaml'), 'apiVersion: 2\nroles:\n  - name: custom:ok\n    global: true\n');
    writeFileSync(join(bad, 'access-control', 'b.yaml'), 'apiVersion: 2\nroles:\n  - name: custom:broken\n    from: [{ uid: missing }]\n');
    const { code, out } = await run(bad);
    expect(code).toBe(1);
    expect(out).toMatch(
      /portcullis failed to start: provisioning failed, nothing was applied: .*b\.yaml:4:12 roles\[0\]\.from\[0\]: role uid "missing"/,
    );
    expect(await roleCount('custom:ok')).toBe(0);
  });

  it('two files for one product stop the start naming both files', async () => {
    const twice = join(dir, 'twice');
    mkdirSync(join(twice, 'plugins'), { recursive: true });
    const body = JSON.stringify({ productId: 'billing', roles: [{ role: { name: 'plugins:billing:reader' }, grants: ['Viewer'] }] });
    writeFileSync(join(twice, 'plugins', 'billing.json'), body);
    writeFileSync(join(twice, 'plugins', 'billing.yml'), body);
    const { code, out } = await run(twice);
    expect(code).toBe(1);
    expect(out).toMatch(
      /portcullis failed to start: provisioning failed, nothing was applied: .*billing\.json, .*billing\.yml: 2 files register product "billing"/,
    );
    expect(await roleCount('plugins:billing:reader')).toBe(0);
  });

  it('the example directory is applied at start (its team created beforehand), and a restart changes nothing', async () => {
    const good = join(dir, 'good');
    cpSync(new URL('../../examples/provisioning', import.meta.url).pathname, good, { recursive: true });
    await onDatabase((db) => db.team.create({ data: { orgId: 1, name: 'Reporting' } }));
    const first = await run(good);
    expect(first.out).toContain('provisioning applied');
    expect(await roleCount('custom:reports:editor')).toBe(1);
    expect(await roleCount('plugins:notes:reader')).toBe(1);
    const second = await run(good);
    expect(second.out).toMatch(/"rolesCreated":0,"rolesUpdated":0,"rolesDeleted":0,"assignmentsAdded":0,"assignmentsRemoved":0/);
  });
});
