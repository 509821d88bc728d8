/**
 * The expiry benchmark: how long after an assignment's `expiresAt` another replica first refuses
 * what it granted. One embedded PostgreSQL (scripts/embedded-postgres.ts), two replicas of the
 * service started as `npm start` starts it. Each round assigns a role to a service account
 * through replica A for two seconds (`expiresAt` by the database's clock, which the replicas
 * follow: platform/database-clock.ts), polls replica B with the account's token until it grants
 * (so B has the answer cached), then polls B back to back until it refuses, and records the
 * moment the refusal arrived minus `expiresAt` (this process's clock, corrected by its own offset
 * to the database's `now()`). No write happens between the grant and the refusal: what B does is
 * its cache entry ending at the moment (kernel/permission-cache.ts "Time").
 * Prints p50, p99 and max over `--rounds` rounds; asserts nothing (the goal: p99 <= 100 ms).
 *
 *   npm run bench -- expiry [--rounds 40] [--quick]
 */
import { parseArgs } from 'node:util';
import pg from 'pg';
import { fmt } from './support/load.js';
import { basicOf, callJson, withTwoReplicas } from './support/replica-set.js';

const { values: flags } = parseArgs({
  args: process.argv.slice(2).filter((a) => a !== 'expiry'),
  options: { rounds: { type: 'string', default: '40' }, quick: { type: 'boolean', default: false } },
});
const rounds = flags.quick ? 10 : Number(flags.rounds);
const PASSWORD = 'bench-password-0';
const ACTION = 'bench:while';
/** How long each grant lasts, in milliseconds. */
const HOLD_MS = 2000;

await withTwoReplicas('expiry', PASSWORD, async ({ a, b, databaseUrl }) => {
  const basic = basicOf('admin', PASSWORD);
  const call = (port: number, method: string, path: string, body?: unknown, auth = basic) => callJson(port, method, path, auth, body);
  const sa = await call(a.port, 'POST', '/api/serviceaccounts', { name: 'bench-while', role: 'Viewer' });
  const token = (await call(a.port, 'POST', `/api/serviceaccounts/${sa.id}/tokens`, { name: 'while' })).key as string;
  await call(a.port, 'POST', '/api/access-control/roles', {
    version: 1,
    uid: 'bench-while',
    name: 'custom:bench-while',
    permissions: [{ action: ACTION }],
  });
  const holds = async () =>
    Object.hasOwn(await call(b.port, 'GET', '/api/access-control/user/permissions', undefined, `Bearer ${token}`), ACTION);

  // This process's offset to the database's clock, as the replicas measure theirs.
  const clock = new pg.Client({ connectionString: databaseUrl });
  await clock.connect();
  let best = { roundTrip: Number.POSITIVE_INFINITY, offset: 0 };
  for (let i = 0; i < 9; i++) {
    const before = Date.now();
    const row = await clock.query<{ now: Date }>('SELECT now() AS now');
    const after = Date.now();
    // The reading of the shortest round trip, as the replicas keep theirs (platform/database-clock.ts).
    if (after - before < best.roundTrip)
      best = { roundTrip: after - before, offset: (row.rows[0]?.now.getTime() ?? before) - (before + after) / 2 };
  }
  await clock.end();
  const offset = best.offset;
  const dbNow = () => Date.now() + offset;

  const lags: number[] = [];
  let pollsPerRound = 0;
  let skipped = 0;
  for (let i = 0; lags.length < rounds; i++) {
    if (skipped > rounds) throw new Error('replica B granted too late to measure in most rounds: the machine is too busy');
    const expiresAt = dbNow() + HOLD_MS;
    await call(a.port, 'POST', `/api/access-control/users/${sa.id}/roles`, {
      roleUid: 'bench-while',
      expiresAt: new Date(expiresAt).toISOString(),
    });
    while (!(await holds()) && dbNow() < expiresAt);
    // B must have the grant cached well before the moment, or the round measures nothing.
    if (dbNow() > expiresAt - 100) {
      skipped++;
      continue;
    }
    for (;;) {
      pollsPerRound++;
      if (!(await holds())) break;
      if (dbNow() - expiresAt > 10_000) throw new Error(`round ${i + 1}: replica B still grants 10 s after expiresAt`);
    }
    lags.push(dbNow() - expiresAt);
  }
  lags.sort((x, y) => x - y);
  const pct = (q: number) => lags[Math.min(lags.length - 1, Math.ceil(q * lags.length) - 1)] as number;
  console.log(
    `\nexpiry, ${rounds} rounds (granted through replica A for ${HOLD_MS} ms, replica B polled back to back): ` +
      `from expiresAt to the first refusal on B p50 ${fmt(pct(0.5), 1)} ms, p99 ${fmt(pct(0.99), 1)} ms, max ${fmt(pct(1), 1)} ms; ` +
      `${fmt(pollsPerRound / rounds, 0)} reads of B per round; clock offset to the database ${fmt(offset, 2)} ms; ${skipped} rounds skipped (B granted too late)`,
  );
});
