/**
 * The access-request benchmark: how long an approval takes, and how long after it another
 * replica first grants what it gave. One embedded PostgreSQL (scripts/embedded-postgres.ts), two
 * replicas of the service started as `npm start` starts it. Each round a user asks for a new role
 * through replica A, an admin approves it through A, and replica B (which has the user's
 * permissions cached without the role) is polled back to back with the user's credentials until
 * it grants; recorded: the approval's round trip on A, and the moment B first granted minus the
 * moment A acknowledged the approval.
 * Prints p50, p99 and max over `--rounds` rounds; asserts nothing.
 *
 *   npm run bench -- access-requests [--rounds 40] [--quick]
 */
import { parseArgs } from 'node:util';
import { fmt } from './support/load.js';
import { basicOf, callJson, withTwoReplicas } from './support/replica-set.js';

const { values: flags } = parseArgs({
  args: process.argv.slice(2).filter((a) => a !== 'access-requests'),
  options: { rounds: { type: 'string', default: '40' }, quick: { type: 'boolean', default: false } },
});
const rounds = flags.quick ? 10 : Number(flags.rounds);
const PASSWORD = 'bench-password-0';
const USER_PASSWORD = 'bench-requester-0';

await withTwoReplicas('requests', PASSWORD, async ({ a, b }) => {
  const adminAuth = basicOf('admin', PASSWORD);
  const userAuth = basicOf('bench-requester', USER_PASSWORD);
  const call = (port: number, method: string, path: string, body?: unknown, auth = adminAuth) => callJson(port, method, path, auth, body);
  await call(a.port, 'POST', '/api/admin/users', { login: 'bench-requester', email: 'r@bench.test', password: USER_PASSWORD });
  const holds = async (action: string) =>
    Object.hasOwn(await call(b.port, 'GET', '/api/access-control/user/permissions', undefined, userAuth), action);

  const approvals: number[] = [];
  const lags: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const action = `bench:jit${i}`;
    await call(a.port, 'POST', '/api/access-control/roles', {
      version: 1,
      uid: `bench-jit-${i}`,
      name: `custom:bench-jit-${i}`,
      permissions: [{ action }],
    });
    const asked = await call(
      a.port,
      'POST',
      '/api/access-control/requests',
      { roleUid: `bench-jit-${i}`, durationSeconds: 3600, justification: 'bench' },
      userAuth,
    );
    if (await holds(action)) throw new Error(`round ${i + 1}: replica B grants before the approval`);
    const start = performance.now();
    await call(a.port, 'POST', `/api/access-control/requests/${asked.id}/approve`);
    const acknowledged = performance.now();
    approvals.push(acknowledged - start);
    while (!(await holds(action))) {
      if (performance.now() - acknowledged > 10_000) throw new Error(`round ${i + 1}: replica B still refuses 10 s after the approval`);
    }
    lags.push(performance.now() - acknowledged);
  }
  const pct = (values: number[], q: number) => {
    const sorted = [...values].sort((x, y) => x - y);
    return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] as number;
  };
  const line = (values: number[]) =>
    `p50 ${fmt(pct(values, 0.5), 1)} ms, p99 ${fmt(pct(values, 0.99), 1)} ms, max ${fmt(pct(values, 1), 1)} ms`;
  console.log(`\naccess requests, ${rounds} rounds on PostgreSQL with two replicas:`);
  console.log(`  approval round trip on replica A: ${line(approvals)}`);
  console.log(`  from the approval's answer on A to the first grant on B: ${line(lags)}`);
});
