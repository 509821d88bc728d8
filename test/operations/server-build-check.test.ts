/**
 * `npm start`'s build check (scripts/build-server.mjs, for start time): file stats first,
 * the content hash only when they differ. On a copy of the build scripts in a project of one
 * source file (the scripts resolve the project from their own location), built for real.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';

const root = mkdtempSync(join(tmpdir(), 'portcullis-build-check-'));
const main = join(root, 'src', 'main.ts');
let build: {
  buildServer(options?: { force?: boolean }): Promise<boolean>;
  serverBuildIsCurrent(): boolean;
};
const manifest = () => JSON.parse(readFileSync(join(root, 'dist', 'server', 'manifest.json'), 'utf8')) as { statSignature: string };

beforeAll(async () => {
  mkdirSync(join(root, 'scripts'));
  mkdirSync(join(root, 'src'));
  for (const script of ['build-server.mjs', 'build-console.mjs']) cpSync(join('scripts', script), join(root, 'scripts', script));
  symlinkSync(join(process.cwd(), 'node_modules'), join(root, 'node_modules'));
  writeFileSync(join(root, 'tsconfig.json'), '{}\n');
  writeFileSync(main, 'export const answer: number = 41;\n');
  build = await import(pathToFileURL(join(root, 'scripts', 'build-server.mjs')).href);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

it('builds when dist is missing, then not again; a touch rebuilds nothing; an edit always rebuilds', async () => {
  expect(build.serverBuildIsCurrent()).toBe(false);
  expect(await build.buildServer()).toBe(true);
  expect(await build.buildServer()).toBe(false);

  // Touched, same content: the stats differ, the hash agrees; the manifest takes the new stats.
  const before = manifest().statSignature;
  const later = new Date(Date.now() + 5000);
  utimesSync(main, later, later);
  expect(build.serverBuildIsCurrent()).toBe(true);
  expect(manifest().statSignature).not.toBe(before);

  // Edited: a new modification time (and here the same size), then the content hash differs.
  writeFileSync(main, 'export const answer: number = 42;\n');
  expect(build.serverBuildIsCurrent()).toBe(false);
  expect(await build.buildServer()).toBe(true);
  expect(readFileSync(join(root, 'dist', 'server', 'main.js'), 'utf8')).toContain('42');

  // A new file changes the list of names.
  writeFileSync(join(root, 'src', 'extra.ts'), 'export {};\n');
  expect(build.serverBuildIsCurrent()).toBe(false);
}, 60_000);
