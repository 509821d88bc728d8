/**
 * API key authentication benchmark (authentication by key must stay cheap):
 * the median time of one authenticated request with an API key (Bearer, and basic `api_key`)
 * versus basic auth with a password (argon2id), in process through `yoga.fetch` against a
 * fresh temporary SQLite database. The request is GET /api/access-control/status, whose permission
 * check is cached, so the difference is the cost of authentication. Asserts nothing.
 *
 *   npm run bench:api-key-auth [-- --requests 300]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { seed } from '../src/kernel/seed.js';
import { openDatabase } from '../src/platform/database.js';
import { createLogger } from '../src/platform/logger.js';

const requests = Number(process.argv[process.argv.indexOf('--requests') + 1]) || 300;
const PASSWORD = 'bench-password';

const dir = mkdtempSync(join(tmpdir(), 'portcullis-bench-'));
try {
  const config = loadConfig({ DATABASE_URL: `file:${join(dir, 'bench.db')}`, ADMIN_PASSWORD: PASSWORD, LOG_LEVEL: 'silent' });
  const database = await openDatabase({ databaseUrl: config.databaseUrl });
  await seed(database.prisma, { adminLogin: config.adminLogin, adminPassword: config.adminPassword });
  const { yoga } = createApp({ db: database.prisma, config, log: createLogger('silent') });

  const basic = (login: string, password: string) => `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}`;
  const adminAuth = basic(config.adminLogin, PASSWORD);
  const created = await yoga.fetch('http://bench/api/auth/keys', {
    method: 'POST',
    headers: { authorization: adminAuth, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'bench', role: 'Admin' }),
  });
  const { key } = (await created.json()) as { key: string };

  const variants = [
    { name: 'API key (Bearer)', authorization: `Bearer ${key}` },
    { name: 'API key (basic api_key)', authorization: basic('api_key', key) },
    { name: 'basic auth (argon2id password)', authorization: adminAuth },
  ];

  async function once(authorization: string): Promise<number> {
    const t0 = process.hrtime.bigint();
    const res = await yoga.fetch('http://bench/api/access-control/status', { headers: { authorization } });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`unexpected status ${res.status}`);
    return Number(process.hrtime.bigint() - t0) / 1e6;
  }

  // Warm up every path (JIT, prepared statements, permission cache), then interleave the
  // variants so drift in machine load hits them alike.
  for (const v of variants) for (let i = 0; i < 20; i++) await once(v.authorization);
  const samples = variants.map(() => [] as number[]);
  for (let i = 0; i < requests; i++) {
    for (const [j, v] of variants.entries()) samples[j]?.push(await once(v.authorization));
  }

  const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] ?? Number.NaN;
  const medians: number[] = [];
  console.log(`GET /api/access-control/status, ${requests} requests per variant, in process (yoga.fetch), SQLite in ${dir}`);
  for (const [j, v] of variants.entries()) {
    const sorted = [...(samples[j] ?? [])].sort((a, b) => a - b);
    medians.push(quantile(sorted, 0.5));
    console.log(
      `${v.name.padEnd(32)} median ${quantile(sorted, 0.5).toFixed(3).padStart(8)} ms   p95 ${quantile(sorted, 0.95).toFixed(3).padStart(8)} ms`,
    );
  }
  const [bearer = Number.NaN, , password = Number.NaN] = medians;
  console.log(`basic auth / API key (Bearer) median: ${(password / bearer).toFixed(1)}x`);
  await database.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
