/**
 * Evaluator benchmark: a principal with 1,000 permissions,
 * checks of the kinds the service makes (exact hit, wildcard hit at several depths, miss,
 * delegation of a 20-permission role). Prints checks per second and the median time per check,
 * then the same checks by node-casbin (a peer library) on the same policy, in one run, and the
 * ratio; asserts nothing. Casbin's model: one policy line per permission,
 * `r.sub == p.sub && r.act == p.act && keyMatch(r.obj, p.obj)` (keyMatch's trailing `*` is our
 * scope wildcard); "no target" has no casbin twin and is left out of the comparison.
 *
 *   npm run bench -- evaluator [--seconds 3]
 */
import { newEnforcer, newModelFromString } from 'casbin';

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

/** Median nanoseconds per check of `fn`, printed with checks per second. */
function measure(name: string, fn: () => boolean): number {
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
  return median;
}

console.log(`principal with ${index.size} permissions; index built in ${buildMicros.toFixed(0)} µs`);
const ours = new Map(checks.map(({ name, e }) => [name, measure(name, () => e.evaluate(index))]));
measure('delegation of 20 permissions', () => index.uncovered(roleToDelegate).length === 0);

const MODEL = `
[request_definition]
r = sub, obj, act
[policy_definition]
p = sub, obj, act
[policy_effect]
e = some(where (p.eft == allow))
[matchers]
m = r.sub == p.sub && r.act == p.act && keyMatch(r.obj, p.obj)
`;
const enforcer = await newEnforcer(newModelFromString(MODEL));
await enforcer.addPolicies(held.map((p) => ['alice', p.scope, p.action]));
// The same checks as above, as (subject, object, action) requests.
const casbinChecks = [
  { name: 'exact scope hit', request: ['alice', 'things1:id:1', 'area1:op1'] },
  { name: 'wildcard hit', request: ['alice', 'things0:id:123456', 'area0:op0'] },
  { name: 'miss (deep target)', request: ['alice', 'things3:id:999999:sub:1', 'area3:op3'] },
  { name: 'unknown action', request: ['alice', 'things1:id:1', 'nothing:here'] },
];
console.log(`\nnode-casbin, ${held.length} policy lines, the same checks (enforceSync):`);
const rows: string[] = [];
for (const { name, request } of casbinChecks) {
  const expected = checks.find((c) => c.name === name)?.e.evaluate(index);
  if (enforcer.enforceSync(...request) !== expected) throw new Error(`casbin and the evaluator disagree on ${name}`);
  const theirs = measure(`casbin: ${name}`, () => enforcer.enforceSync(...request));
  rows.push(`${name.padEnd(28)} ${(theirs / (ours.get(name) ?? Number.NaN)).toFixed(0).padStart(8)}x faster than casbin`);
}
console.log('\nper check, evaluator against casbin (medians measured in this run):');
for (const row of rows) console.log(row);
