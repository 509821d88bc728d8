/**
 * Evaluator benchmark (issue #2 item 6): a principal with 1,000 permissions, checks of the kinds
 * the service makes (exact hit, wildcard hit at several depths, miss, delegation of a 20-permission
 * role). Prints checks per second and the median time per check; asserts nothing.
 *
 *   npm run bench:evaluator [-- --seconds 3]
 */

import type { PermissionPair } from '../src/kernel/catalogue.js';
import { PermissionIndex, permission } from '../src/kernel/evaluator.js';

const seconds = Number(process.argv[process.argv.indexOf('--seconds') + 1]) || 2;

// 1,000 permissions over 50 actions: exact ids, attribute wildcards and area wildcards.
const held: PermissionPair[] = [];
for (let i = 0; i < 1000; i++) {
  const action = `area${i % 50}:op${i % 7}`;
  const scope = i % 10 === 0 ? `things${i % 13}:id:*` : i % 97 === 0 ? `things${i % 13}:*` : `things${i % 13}:id:${i}`;
  held.push({ action, scope });
}
const buildStart = process.hrtime.bigint();
const index = PermissionIndex.from(held);
const buildMicros = Number(process.hrtime.bigint() - buildStart) / 1000;

const checks = [
  { name: 'exact scope hit', e: permission('area1:op1', 'things1:id:1') },
  { name: 'wildcard hit', e: permission('area0:op0', 'things0:id:123456') },
  { name: 'miss (deep target)', e: permission('area3:op3', 'things3:id:999999:sub:1') },
  { name: 'unknown action', e: permission('nothing:here', 'things1:id:1') },
  { name: 'no target', e: permission('area2:op2') },
];
const roleToDelegate = held.filter((_, i) => i % 50 === 0).slice(0, 20);

function measure(name: string, fn: () => boolean): void {
  // Batches of 1,000 calls; the median batch gives the median time per check.
  const batch = 1000;
  const samples: number[] = [];
  let total = 0;
  let sink = 0;
  const end = performance.now() + (seconds * 1000) / (checks.length + 1);
  while (performance.now() < end) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < batch; i++) if (fn()) sink++;
    samples.push(Number(process.hrtime.bigint() - t0) / batch);
    total += batch;
  }
  samples.sort((a, b) => a - b);
  const median = samples[Math.floor(samples.length / 2)] ?? Number.NaN;
  const perSecond = 1e9 / (samples.reduce((a, b) => a + b, 0) / samples.length);
  console.log(
    `${name.padEnd(28)} ${Math.round(perSecond).toLocaleString('en-US').padStart(14)} checks/s   median ${median.toFixed(1).padStart(7)} ns/check   (${total.toLocaleString('en-US')} checks, ${sink} passed)`,
  );
}

console.log(`principal with ${index.size} permissions; index built in ${buildMicros.toFixed(0)} µs`);
for (const { name, e } of checks) measure(name, () => e.evaluate(index));
measure('delegation of 20 permissions', () => index.uncovered(roleToDelegate).length === 0);
