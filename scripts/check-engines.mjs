#!/usr/bin/env node
// Fails when an installed package declares an `engines.node` range that leaves out the running
// Node or the oldest Node this project promises (package.json `engines.node`, its minimum), so
// the promise and the tree cannot drift apart unnoticed (as when dependencies declared
// Node >= 22 while `engines` said >= 20.19). npm only warns about such packages (engine-strict is
// off), and CI runs on the oldest supported Node, so this check runs in `.ci/run` after `npm ci`.
//
//   node scripts/check-engines.mjs [node_modules directory]
//
// Exit 0: every package fits (one summary line). Exit 1: one line per offending package
// (`<path> <version> engines.node "<range>": excludes ...`), fixed through `overrides` in
// package.json or by dropping the dependency. Packages without `engines.node` promise nothing.
import { readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import semver from 'semver';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const modules = resolve(process.argv[2] ?? join(root, 'node_modules'));

/** @param {string} file */
function readJson(file) {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

const project = readJson(join(root, 'package.json'));
const promised = project?.engines?.node;
const minimum = typeof promised === 'string' ? semver.minVersion(promised) : null;
if (!minimum) {
  process.stderr.write(`package.json has no usable engines.node (${JSON.stringify(promised)})\n`);
  process.exit(1);
}
const running = process.version.replace(/^v/, '');

/** @type {string[]} */
const problems = [];
if (!semver.satisfies(running, promised)) problems.push(`this Node, ${running}, is outside package.json engines.node "${promised}"`);

/** Package folders below a node_modules folder, scoped ones included; symlinks followed once. */
const seen = new Set();
let checked = 0;

/** @param {string} dir a node_modules folder */
function walk(dir) {
  let names;
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (name.startsWith('.')) continue;
    const path = join(dir, name);
    if (name.startsWith('@')) {
      walk(path);
      continue;
    }
    let real;
    try {
      if (!statSync(path).isDirectory()) continue;
      real = realpathSync(path);
    } catch {
      continue;
    }
    if (seen.has(real)) continue;
    seen.add(real);
    checkPackage(path);
    walk(join(path, 'node_modules'));
  }
}

/** @param {string} path a package folder */
function checkPackage(path) {
  const pkg = readJson(join(path, 'package.json'));
  if (!pkg) return;
  checked += 1;
  const range = pkg.engines?.node;
  if (range === undefined) return;
  const where = `${relative(root, path)} ${pkg.version ?? '?'}`;
  if (typeof range !== 'string' || semver.validRange(range) === null) {
    problems.push(`${where} engines.node ${JSON.stringify(range)}: not a version range`);
    return;
  }
  const excluded = [running, minimum.version].filter((v) => !semver.satisfies(v, range));
  if (excluded.length > 0) problems.push(`${where} engines.node "${range}": excludes Node ${[...new Set(excluded)].join(' and ')}`);
}

walk(modules);
if (checked === 0) problems.push(`no packages found under ${modules} (run npm ci first)`);
if (problems.length > 0) {
  process.stderr.write(
    `Installed packages that do not support the Node this project runs on (package.json engines.node "${promised}", running ${running}):\n` +
      problems.map((p) => `  ${p}\n`).join('') +
      'Pin a version that supports it through "overrides" in package.json, or drop the dependency.\n',
  );
  process.exit(1);
}
process.stdout.write(
  `engines: ${checked} installed packages support Node ${minimum.version} (engines.node "${promised}") and ${running}\n`,
);
