/**
 * Revocation across processes: a change written by another process (writer-process.ts,
 * through the module services, as the CLI does) is seen by this server's very next request
 * (`PRAGMA data_version`; on PostgreSQL the next request once the change feed's NOTIFY arrived:
 * support/changes.ts), and two processes writing at once never fail (transactions begin
 * IMMEDIATE with a busy timeout, so they queue instead of answering P1008 / SQLITE_BUSY).
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { watchForeignCommits } from '../support/changes.js';
import { createRole, createUser, p } from '../support/subjects.js';

const run = promisify(execFile);
const WRITER = fileURLToPath(new URL('./writer-process.ts', import.meta.url));
let app: TestApp;

async function writer(...args: string[]): Promise<{ ok: number; failed: string[] }> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', WRITER, ...args], { timeout: 120_000 });
  return JSON.parse(stdout.trim().split('\n').pop() as string) as { ok: number; failed: string[] };
}

beforeAll(async () => {
  app = await createTestApp();
});
afterAll(() => app.close());

describe('another process on the same database', () => {
  it('a demotion written by another process is seen by the next request', { timeout: 120_000 }, async () => {
    const victim = await createUser(app, 'two-process-victim', { orgRole: 'Admin' });
    const permissions = async () => {
      const res = await app.graphql<{ viewer: { orgRole: string; permissions: { action: string }[] } }>(
        '{ viewer { orgRole permissions { action } } }',
        {},
        { auth: victim.auth },
      );
      return res.body.data?.viewer;
    };
    const before = await permissions();
    expect(before?.orgRole).toBe('Admin');
    expect(before?.permissions.some((x) => x.action === 'org.users:add')).toBe(true); // cached now
    const commits = watchForeignCommits(app.database.prisma);
    expect(await writer('demote', app.config.databaseUrl, String(victim.id))).toEqual({ ok: 1, failed: [] });
    await commits.seen();
    const after = await permissions();
    expect(after?.orgRole).toBe('Viewer');
    expect(after?.permissions.some((x) => x.action === 'org.users:add')).toBe(false);
  });

  it('two processes writing at once: every write succeeds, none answers 5xx', { timeout: 120_000 }, async () => {
    const role = await createRole(app, 'churned', [p('churn:kept')]);
    const COUNT = 150;
    const theirsRunning = writer('churn', app.config.databaseUrl, String(role.id), String(COUNT));
    let finished = false;
    void theirsRunning.finally(() => {
      finished = true;
    });
    // This process keeps writing until the other one is done, so the two overlap whatever its start-up time.
    const statuses: number[] = [];
    for (let i = 0; !finished || i < COUNT; i++) {
      const res = await app.request(`/api/access-control/roles/${role.uid}`, {
        method: 'PUT',
        json: { name: 'custom:churned', version: i + 2, permissions: [{ action: 'churn:kept' }, { action: `churn:a${i}` }] },
      });
      statuses.push(res.status);
    }
    const theirs = await theirsRunning;
    console.info(`two writers: ${theirs.ok} writes by the other process, ${statuses.length} PUTs here`);
    expect(theirs).toEqual({ ok: COUNT, failed: [] });
    expect(statuses.filter((s) => s >= 500)).toEqual([]);
    expect(statuses.every((s) => s === 200)).toBe(true);
  });
});
