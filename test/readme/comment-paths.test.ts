/**
 * Comments name files that exist: every
 * file path a comment in src/, test/, scripts/, bench/ or web/ names (`*.ts`, `*.md`, `*.json`, ...)
 * is a file of the repository, found from the repository's root, from the commenting file's folder
 * or one above it, or (a bare name, or a path's tail) anywhere in the repository. The spec the
 * code cites (`service-interface.md`, `upstream-behaviour.md`) is kept in docs/spec/. Names of
 * other projects' files and of files written at run time are listed below with the reason; a
 * comment may name a file it says was removed.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, posix, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './markdown.js';

const FOLDERS = ['src', 'test', 'scripts', 'bench', 'web'];
const SKIPPED = new Set(['node_modules', 'generated', 'dist', 'fixtures']);
const SOURCE = /\.(ts|tsx|mjs|cjs|js)$/;
/** A path-like token ending in a file extension; not part of a glob, a placeholder or a URL. */
const PATH = /(?<![\w@/.*{}<>:-])((?:\.\.?\/)*[\w.-]+(?:\/[\w.-]+)*\.(?:ts|tsx|mjs|cjs|md|json|prisma|sql|graphql|ya?ml))(?![\w*{}/-])/g;

/** Names that are not this repository's files, and why. */
const ELSEWHERE: Record<string, string> = {
  'plugin.json': "a Grafana plugin's manifest",
  'public/openapi3.json': "Grafana's OpenAPI document, in its repository",
  'access_control.md': "Grafana's documentation page",
  'admin.md': "Grafana's documentation page",
  'auth.md': "Grafana's documentation page",
  'user.md': "Grafana's documentation page",
  'manifest.json': 'written by the builds into dist/',
  'dist/console/manifest.json': 'written by the console build',
  '.postgres-local/settings.json': 'written by scripts/postgres-local.ts',
  'plugins/billing.json': 'an example provisioning path',
  'plugins/billing.yml': 'an example provisioning path',
  'app.graphql': 'a method of the test app, not a file',
};

function sourceFiles(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { withFileTypes: true }).flatMap((entry) => {
    const path = posix.join(folder, entry.name);
    if (entry.isDirectory()) return SKIPPED.has(entry.name) ? [] : sourceFiles(path);
    // Generated files (gql.tada's web/graphql-env.d.ts) carry their tool's comments, not ours.
    return SOURCE.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

function repositoryFiles(): string[] {
  const walk = (folder: string): string[] =>
    readdirSync(join(ROOT, folder), { withFileTypes: true }).flatMap((entry) => {
      if (entry.name === '.git' || entry.name === 'node_modules' || entry.name === 'dist') return [];
      const path = folder ? posix.join(folder, entry.name) : entry.name;
      return entry.isDirectory() ? walk(path) : [path];
    });
  return walk('');
}

/** The comment text of each line of `source` (after `//`, or inside a block comment), with its line number. */
function commentLines(source: string): { line: number; text: string }[] {
  const out: { line: number; text: string }[] = [];
  let inBlock = false;
  source.split('\n').forEach((raw, index) => {
    let text: string | undefined;
    if (inBlock) text = raw;
    else if (raw.includes('/*')) {
      inBlock = true;
      text = raw.slice(raw.indexOf('/*'));
    } else {
      const slashes = raw.search(/(^|\s)\/\/\s/);
      if (slashes >= 0) text = raw.slice(slashes);
    }
    if (inBlock && raw.includes('*/')) inBlock = false;
    if (text !== undefined) out.push({ line: index + 1, text });
  });
  return out;
}

describe('paths named in comments', () => {
  const files = repositoryFiles();
  const all = new Set(files);
  const names = new Set(files.map((f) => posix.basename(f)));
  const exists = (from: string, path: string) => {
    if (path in ELSEWHERE) return true;
    for (let dir = dirname(from); ; dir = dirname(dir)) {
      if (all.has(posix.normalize(posix.join(dir === '.' ? '' : dir, path)))) return true;
      if (dir === '.' || dir === '') break;
    }
    if (!path.includes('/')) return names.has(path);
    return files.some((f) => f.endsWith(`/${path.replace(/^(\.\.?\/)+/, '')}`));
  };

  it('finds the comments to check', () => {
    const count = FOLDERS.flatMap(sourceFiles).length;
    expect(count).toBeGreaterThan(300);
  });

  it('name files of the repository', () => {
    const missing: string[] = [];
    for (const file of FOLDERS.flatMap(sourceFiles)) {
      for (const { line, text } of commentLines(readFileSync(join(ROOT, file), 'utf8'))) {
        if (/\bremoved\b/.test(text)) continue;
        for (const [, path] of text.matchAll(PATH)) {
          if (!exists(file, path as string)) missing.push(`${relative(ROOT, join(ROOT, file))}:${line}: ${path}`);
        }
      }
    }
    expect(missing).toEqual([]);
  });
});
