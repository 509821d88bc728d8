/**
 * README.md, docs/*.md and SECURITY.md stand on their own and their shell lines paste as printed:
 * links lead to files of the repository (and to headings that exist
 * there, by GitHub's anchors) or the local server, every `sh` block is safe in an interactive bash
 * or zsh, every `curl` fails on an HTTP error, the README stays short and names every docs page,
 * and each walk-through has the shape its test (walkthrough.test.ts) relies on.
 */
import { existsSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { codeBlocks, DOC_FILES, headingAnchors, links, ROOT, readDoc, shellHazards, WALK_THROUGHS, walkThroughSteps } from './markdown.js';

const docs = DOC_FILES.map((file) => ({ file, text: readDoc(file) }));
const shellBlocks = docs.flatMap(({ file, text }) =>
  codeBlocks(text, file)
    .filter((b) => b.lang === 'sh')
    .map((b) => ({ ...b, file })),
);

/** Why a relative link of `file` is broken, or undefined when it leads to a file (and heading) of the repository. */
function brokenLink(file: string, target: string): string | undefined {
  const [path = '', anchor] = target.split('#', 2);
  const resolved = path === '' ? join(ROOT, file) : resolve(ROOT, dirname(file), decodeURIComponent(path));
  const inside = relative(ROOT, resolved);
  if (inside.startsWith('..') || isAbsolute(inside)) return 'outside the repository';
  if (!existsSync(resolved)) return 'no such file';
  if (anchor !== undefined && resolved.endsWith('.md') && !headingAnchors(readDoc(inside)).has(anchor)) return `no heading #${anchor}`;
  return undefined;
}

describe('README.md, docs/ and SECURITY.md', () => {
  it('docs/ holds the pages the README links, and the README links every one', () => {
    const readmeTargets = links(readDoc('README.md')).map((l) => l.target.replace(/#.*$/, ''));
    expect(DOC_FILES.filter((f) => f.startsWith('docs/') && !readmeTargets.includes(f))).toEqual([]);
    expect(readmeTargets).toEqual(expect.arrayContaining(['SECURITY.md', 'LICENSE', 'docs/walkthrough.md', 'docs/operations.md']));
  });

  it('the README is short: at most ~200 lines, and says what the service is before any command', () => {
    const readme = readDoc('README.md');
    expect(readme.split('\n').length).toBeLessThanOrEqual(210);
    const firstScreen = readme.slice(0, readme.indexOf('```'));
    for (const term of ['Organization', 'Permission', 'Role', 'basic roles', 'fixed roles', 'Assignment', 'Team', 'Service account'])
      expect(firstScreen, `the README explains "${term}" before the first command`).toContain(`${term}`);
  });

  it('links only files of the repository and their headings, or the local server', () => {
    const found = docs.flatMap(({ file, text }) => links(text).map((l) => ({ ...l, file })));
    expect(found.length).toBeGreaterThan(10);
    const broken = found.flatMap(({ file, target, line }) => {
      if (/^https?:\/\/localhost(:\d+)?\//.test(target)) return [];
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) || isAbsolute(target)) return [`${file}:${line}: ${target}: not a relative link`];
      const why = brokenLink(file, target);
      return why ? [`${file}:${line}: ${target}: ${why}`] : [];
    });
    expect(broken, 'links leading outside the repository, to missing files or to missing headings').toEqual([]);
  });

  it('has a LICENSE, and says so', () => {
    expect(existsSync(resolve(ROOT, 'LICENSE'))).toBe(true);
    expect(links(readDoc('README.md')).map((l) => l.target)).toContain('LICENSE');
  });

  it('every sh block pastes into bash or zsh as printed: quoted URLs and JSON, no comments or placeholders', () => {
    expect(shellBlocks.length).toBeGreaterThan(5);
    const problems = shellBlocks.flatMap((b) => shellHazards(b.text).map((p) => `${b.file}:${b.line}: ${p}`));
    expect(problems).toEqual([]);
  });

  it('every curl fails on an HTTP error (-f) and shows why (-sS)', () => {
    const calls = shellBlocks.flatMap((b) => [...b.text.matchAll(/\bcurl\b(\s+\S+)?/g)].map((m) => `${b.file}:${b.line}: ${m[0]}`));
    expect(calls.length).toBeGreaterThan(5);
    expect(calls.filter((c) => !c.endsWith('curl -fsS'))).toEqual([]);
  });

  it.each(WALK_THROUGHS)('$file "$heading" starts the server in its first block, and only there', ({ file, heading }) => {
    const steps = walkThroughSteps(readDoc(file), heading, file);
    expect(steps.length).toBeGreaterThan(6);
    expect(steps.map((s) => /\bnpm start\b/.test(s.command.text))).toEqual(steps.map((_, i) => i === 0));
    expect(steps[0]?.expected).toBeUndefined();
    // The server's address comes from one variable, so the test can point it at a free port.
    for (const { command } of steps.slice(1)) expect(command.text).not.toMatch(/localhost:3000/);
  });

  it('headingAnchors gives GitHub anchors', () => {
    const anchors = headingAnchors(
      "# A\n## Escalation: who may grant\n## Provisioning (RBAC files, Grafana's apiVersion 2)\n```\n# not a heading\n```\n## A\n## `npm test` time\n",
    );
    expect([...anchors]).toEqual([
      'a',
      'escalation-who-may-grant',
      'provisioning-rbac-files-grafanas-apiversion-2',
      'a-1',
      'npm-test-time',
    ]);
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
