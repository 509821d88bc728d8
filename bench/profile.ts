/**
 * Reads a V8 CPU profile (node --cpu-prof) and prints where the time went: self time by
 * function (file:function), self time by area (each of our src/ folders, each npm package,
 * Node's internals, garbage collection, idle), and inclusive time of our own functions. Frames
 * of the built server (dist/server/main.js) are mapped back to their src/ files through its
 * source map. `fromUs` (a CLOCK_MONOTONIC time in microseconds, `process.hrtime`'s clock, which
 * V8's profile timestamps share) leaves out the samples before it: the start-up.
 *
 *   npm run bench -- profile <file.cpuprofile | folder (its largest profile)>
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fmt, printTable } from './support/load.js';
import { ROOT } from './support/processes.js';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

const maps = new Map<string, SourceMap | null>();

/** The source map of a built file (`<file>.map` beside it), or null. */
function sourceMapOf(path: string): SourceMap | null {
  if (!maps.has(path)) {
    const file = `${path}.map`;
    maps.set(path, existsSync(file) ? new SourceMap(JSON.parse(readFileSync(file, 'utf8'))) : null);
  }
  return maps.get(path) ?? null;
}

/** The frame's source file URL: the original file for frames of a source-mapped build. */
function sourceUrlOf(frame: ProfileNode['callFrame']): string {
  if (!frame.url.startsWith('file://') || !frame.url.includes('/dist/server/')) return frame.url;
  const path = fileURLToPath(frame.url);
  const entry = sourceMapOf(path)?.findEntry(frame.lineNumber, frame.columnNumber);
  if (!entry || !('originalSource' in entry) || !entry.originalSource) return frame.url;
  const original = entry.originalSource.startsWith('file://')
    ? fileURLToPath(entry.originalSource)
    : resolve(dirname(path), entry.originalSource);
  return `file://${original}`;
}

/** `url` shortened: `src/http/routes.ts`, `pkg-name/path`, `node:internal/...`. */
function fileOf(url: string): string {
  if (!url) return '';
  const path = url.startsWith('file://') ? decodeURIComponent(url.slice(7)) : url;
  const inModules = path.lastIndexOf('/node_modules/');
  if (inModules !== -1) return path.slice(inModules + 14);
  return path.startsWith('/') ? relative(ROOT, path) : path;
}

/** The area a file belongs to: an npm package, a src/ folder, node internals, or a V8 pseudo-node. */
function areaOf(file: string, name: string): string {
  if (!file) return name.startsWith('(') ? name : '(native)';
  if (file.startsWith('node:') || file.startsWith('internal/')) return 'node internals';
  if (file.startsWith('src/') || file.startsWith('dist/')) return file.split('/').slice(0, 2).join('/');
  const parts = file.split('/');
  return (parts[0]?.startsWith('@') ? parts.slice(0, 2) : parts.slice(0, 1)).join('/');
}

/** The profile file to read: `path` itself, or the largest .cpuprofile in the folder `path`. */
function pick(path: string): string {
  if (!statSync(path).isDirectory()) return path;
  const files = readdirSync(path)
    .filter((f) => f.endsWith('.cpuprofile'))
    .map((f) => join(path, f))
    .sort((a, b) => statSync(b).size - statSync(a).size);
  if (!files[0]) throw new Error(`no .cpuprofile in ${path}`);
  return files[0];
}

/** Prints the three tables of the module comment for the profile at `path` (file or folder). */
export function printProfile(path: string, top = 25, fromUs = 0): void {
  const file = pick(path);
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  for (const node of profile.nodes) node.callFrame.url = sourceUrlOf(node.callFrame);
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const keyOf = (n: ProfileNode) => {
    const f = fileOf(n.callFrame.url);
    return f ? `${f}:${n.callFrame.functionName || '(anonymous)'}` : n.callFrame.functionName;
  };
  const self = new Map<string, number>();
  const areas = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let total = 0;
  let idle = 0;
  let clock = profile.startTime;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    clock += dt;
    if (clock < fromUs) return;
    const node = byId.get(id);
    if (!node) return;
    if (node.callFrame.functionName === '(idle)') {
      idle += dt;
      return;
    }
    total += dt;
    const key = keyOf(node);
    self.set(key, (self.get(key) ?? 0) + dt);
    const area = areaOf(fileOf(node.callFrame.url), node.callFrame.functionName);
    areas.set(area, (areas.get(area) ?? 0) + dt);
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const n = byId.get(at) as ProfileNode;
      if (!fileOf(n.callFrame.url).startsWith('src/')) continue;
      const k = keyOf(n);
      if (seen.has(k)) continue;
      seen.add(k);
      inclusive.set(k, (inclusive.get(k) ?? 0) + dt);
    }
  });
  const pct = (us: number) => `${fmt((100 * us) / total, 1)} %`;
  const rows = (map: Map<string, number>, n: number) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([k, us]) => [k, pct(us), `${fmt(us / 1000)} ms`]);
  console.log(`\nCPU profile ${file}${fromUs ? ' (under load)' : ''}: ${fmt(total / 1000)} ms busy, ${fmt(idle / 1000)} ms idle`);
  console.log('\nself time by area');
  printTable(['area', 'share of busy', 'time'], rows(areas, 20));
  console.log('\nself time by function');
  printTable(['file:function', 'share of busy', 'time'], rows(self, top));
  console.log('\ninclusive time of our functions (src/)');
  printTable(['file:function', 'share of busy', 'time'], rows(inclusive, top));
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop() ?? '')) {
  const path = process.argv.slice(2).find((a) => a !== 'profile');
  if (!path) throw new Error('usage: npm run bench -- profile <file.cpuprofile | folder>');
  printProfile(path);
}
