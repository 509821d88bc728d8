/**
 * README.md stands on its own and its shell lines paste as printed (issue #12 item 6): links lead
 * to files of the repository (or the local server), every `sh` block is safe in an interactive
 * bash or zsh, every `curl` fails on an HTTP error, and the walk-through has the shape its test
 * (walkthrough.test.ts) relies on.
 */
import { existsSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { codeBlocks, links, ROOT, readReadme, shellHazards, walkThroughSteps } from './markdown.js';

const readme = readReadme();
const shellBlocks = codeBlocks(readme).filter((b) => b.lang === 'sh');

describe('README.md', () => {
  it('links only files of the repository, its own sections, or the local server', () => {
    const found = links(readme);
    expect(found.length).toBeGreaterThan(0);
    const outside = found.filter(({ target }) => {
      if (target.startsWith('#')) return false;
      if (/^https?:\/\/localhost(:\d+)?\//.test(target)) return false;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) || isAbsolute(target)) return true;
      const file = resolve(ROOT, target.replace(/#.*$/, ''));
      const inside = relative(ROOT, file);
      return inside.startsWith('..') || isAbsolute(inside) || !existsSync(file);
    });
    expect(outside, 'links leading outside the repository or to missing files').toEqual([]);
  });

  it('has a LICENSE, and says so', () => {
    expect(existsSync(resolve(ROOT, 'LICENSE'))).toBe(true);
    expect(links(readme).map((l) => l.target)).toContain('LICENSE');
  });

  it('every sh block pastes into bash or zsh as printed: quoted URLs and JSON, no comments or placeholders', () => {
    expect(shellBlocks.length).toBeGreaterThan(5);
    const problems = shellBlocks.flatMap((b) => shellHazards(b.text).map((p) => `README.md:${b.line}: ${p}`));
    expect(problems).toEqual([]);
  });

  it('every curl fails on an HTTP error (-f) and shows why (-sS)', () => {
    const calls = shellBlocks.flatMap((b) => [...b.text.matchAll(/\bcurl\b(\s+\S+)?/g)].map((m) => `README.md:${b.line}: ${m[0]}`));
    expect(calls.length).toBeGreaterThan(5);
    expect(calls.filter((c) => !c.endsWith('curl -fsS'))).toEqual([]);
  });

  it('the walk-through starts the server in its first block, and only there', () => {
    const steps = walkThroughSteps(readme);
    expect(steps.length).toBeGreaterThan(10);
    expect(steps.map((s) => /\bnpm start\b/.test(s.command.text))).toEqual(steps.map((_, i) => i === 0));
    expect(steps[0]?.expected).toBeUndefined();
    // The server's address comes from one variable, so the test can point it at a free port.
    for (const { command } of steps.slice(1)) expect(command.text).not.toMatch(/localhost:3000/);
  });

  it('shellHazards finds what an interactive zsh or bash would change', () => {
    expect(shellHazards(`curl -fsS "$BASE/a?b=1" -d '{"a":[1]}' "\${PORT:-3000}"`)).toEqual([]);
    expect(shellHazards('curl -fsS $BASE/a?b=1')).toHaveLength(1);
    expect(shellHazards('npm start   # serves')).toHaveLength(1);
    expect(shellHazards('X=<client secret>')).toHaveLength(2);
    expect(shellHazards('echo "hi!"')).toHaveLength(1);
    expect(shellHazards('echo {a,b}')).toHaveLength(1);
    expect(shellHazards("echo 'open")).toHaveLength(1);
  });
});
