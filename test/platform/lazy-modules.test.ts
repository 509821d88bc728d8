/**
 * Memory and start time: a SQLite service without LDAP or OAuth settings loads neither
 * node-postgres, nor the LDAP client, nor openid-client/jose, and a start on an existing database
 * does not load the argon2 binding: they are imported at first use (dynamic `import()`). Nor does
 * it load the YAML parser (no provisioning files), the TOML parser (no ldap.toml) or prom-client
 * (METRICS_ENABLED off): loaded with `require()` when first needed; nor graphql-jit, loaded at
 * the first hot GraphQL document (http/use-execution.ts). Read
 * from the modules the server process resolved (test/support/module-log.mjs, a module hook), not
 * from timings or memory; the packages every start needs are checked too, so the log is known
 * to be complete.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { onPostgres } from '../support/postgres.js';
import { killServers, startServer, stopServer } from '../support/server.js';

const dir = mkdtempSync(join(tmpdir(), 'portcullis-lazy-'));
const HOOK = fileURLToPath(new URL('../support/module-log.mjs', import.meta.url));

afterAll(() => {
  killServers();
  rmSync(dir, { recursive: true, force: true });
});

/** The packages (node_modules/<name>) the server resolved from its start until it answered /api/health. */
async function packagesLoaded(name: string, env: Record<string, string> = {}): Promise<Set<string>> {
  const log = join(dir, `${name}.log`);
  writeFileSync(log, '');
  const server = await startServer(
    {
      DATABASE_URL: `file:${join(dir, 'portcullis.db')}`,
      ADMIN_PASSWORD: 'lazy-modules-password',
      PORTCULLIS_MODULE_LOG: log,
      NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import ${HOOK}`,
      ...env,
    },
    { as: 'image' },
  );
  const health = await fetch(`http://127.0.0.1:${server.port}/api/health`);
  expect(health.status).toBe(200);
  await stopServer(server);
  const packages = new Set<string>();
  for (const url of readFileSync(log, 'utf8').split('\n')) {
    const match = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
    if (match?.[1]) packages.add(match[1]);
  }
  return packages;
}

describe.skipIf(onPostgres)('modules loaded by a SQLite service without LDAP or OAuth', () => {
  it('leave out node-postgres, the LDAP and OpenID clients; argon2 only when the start hashes', async () => {
    const fresh = await packagesLoaded('fresh');
    for (const needed of ['graphql-yoga', 'better-sqlite3', '@prisma/client', '@node-rs/argon2']) expect(fresh).toContain(needed);
    for (const lazy of ['pg', '@prisma/adapter-pg', 'ldapts', 'openid-client', 'jose', 'yaml', 'smol-toml', 'prom-client', 'graphql-jit']) {
      expect(fresh).not.toContain(lazy);
    }

    const existing = await packagesLoaded('existing');
    expect(existing).toContain('graphql-yoga');
    for (const lazy of ['pg', 'ldapts', 'openid-client', 'jose', '@node-rs/argon2', 'yaml', 'smol-toml', 'prom-client']) {
      expect(existing).not.toContain(lazy);
    }
  }, 180_000);

  it('load prom-client when metrics are on (the log sees packages loaded with require())', async () => {
    const metrics = await packagesLoaded('metrics', { METRICS_ENABLED: 'true' });
    expect(metrics).toContain('prom-client');
    for (const lazy of ['yaml', 'smol-toml', 'pg']) expect(metrics).not.toContain(lazy);
  }, 180_000);
});
