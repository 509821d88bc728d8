/**
 * `npm run bench`: the benchmarks, each in a process of its own (so one's memory and
 * JIT state never colour the next), in this order: the HTTP benchmark against a bare yoga
 * (http.ts), the per-request budget (budget.ts), the scale benchmark (scale.ts), the evaluator
 * against casbin (evaluator.ts). They print ratios measured in one run, hold no targets, and are
 * not part of `npm test`.
 *
 *   npm run bench                      all four (about 10 minutes; --quick: 1 to 3, with the load)
 *   npm run bench -- <suite> [flags]   one of http, budget, scale, scale-db, evaluator, router, profile, replicas, changes, simulate,
 *                                      review, expiry, access-requests
 *   npm run bench -- --quick           all four, shorter and on a smaller scale database
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from './support/processes.js';

const SUITES = [
  'http',
  'budget',
  'scale',
  'scale-db',
  'evaluator',
  'router',
  'profile',
  'replicas',
  'changes',
  'simulate',
  'review',
  'expiry',
  'access-requests',
];
const [first, ...rest] = process.argv.slice(2);
const chosen = first && SUITES.includes(first) ? [first] : ['http', 'budget', 'scale', 'evaluator'];
const flags = first && SUITES.includes(first) ? rest : process.argv.slice(2);

let failed = 0;
for (const suite of chosen) {
  if (chosen.length > 1) console.log(`\n=== ${suite} ===`);
  const args = suite === 'evaluator' && flags.includes('--quick') ? ['--seconds', '1'] : flags;
  const run = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', join(ROOT, 'bench', `${suite}.ts`), ...args], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  if (run.status !== 0) {
    failed++;
    console.error(`${suite} failed (exit ${run.status ?? run.signal})`);
  }
}
process.exitCode = failed > 0 ? 1 : 0;
