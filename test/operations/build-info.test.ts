/**
 * The build named by `GET /api/health` and `portcullis_build_info`: COMMIT_SHA when set, else the
 * commit `.git` points to (loose ref, packed ref or detached HEAD; a clone or a linked worktree), else
 * `unknown`.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildInfo } from '../../src/platform/build-info.js';

const SHA = 'b915ceb0e7b6f0d1c2a3b4c5d6e7f8091a2b3c4d';
const dirs: string[] = [];

/** A directory with a package.json and the given files under .git/. */
function checkout(git: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'portcullis-build-'));
  dirs.push(root);
  writeFileSync(join(root, 'package.json'), JSON.stringify({ version: '9.8.7' }));
  for (const [path, text] of Object.entries(git)) {
    mkdirSync(join(root, '.git', path, '..'), { recursive: true });
    writeFileSync(join(root, '.git', path), text);
  }
  return root;
}

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('buildInfo', () => {
  it('reads the branch ref HEAD names', () => {
    const root = checkout({ HEAD: 'ref: refs/heads/main\n', 'refs/heads/main': `${SHA}\n` });
    expect(buildInfo(undefined, root)).toEqual({ version: '9.8.7', commit: SHA });
  });
  it('reads a packed ref', () => {
    const root = checkout({ HEAD: 'ref: refs/heads/main\n', 'packed-refs': `# pack-refs with: peeled\n${SHA} refs/heads/main\n` });
    expect(buildInfo(undefined, root).commit).toBe(SHA);
  });
  it('reads a detached HEAD', () => {
    expect(buildInfo(undefined, checkout({ HEAD: `${SHA}\n` })).commit).toBe(SHA);
  });
  it('prefers COMMIT_SHA, and says unknown without either', () => {
    const root = checkout({ HEAD: `${SHA}\n` });
    expect(buildInfo('from-the-build', root).commit).toBe('from-the-build');
    expect(buildInfo(undefined, checkout({}))).toEqual({ version: '9.8.7', commit: 'unknown' });
    expect(buildInfo(undefined, checkout({ HEAD: 'ref: refs/heads/../../../etc/passwd\n' })).commit).toBe('unknown');
  });
  it('reads a linked worktree: .git is a file naming its git directory, shared refs in the common one', () => {
    const main = checkout({ 'packed-refs': `${SHA} refs/heads/feature\n`, 'worktrees/wt/HEAD': 'ref: refs/heads/feature\n' });
    writeFileSync(join(main, '.git/worktrees/wt/commondir'), '../..\n');
    const worktree = mkdtempSync(join(tmpdir(), 'portcullis-worktree-'));
    dirs.push(worktree);
    writeFileSync(join(worktree, 'package.json'), JSON.stringify({ version: '1.0.0' }));
    writeFileSync(join(worktree, '.git'), `gitdir: ${join(main, '.git/worktrees/wt')}\n`);
    expect(buildInfo(undefined, worktree)).toEqual({ version: '1.0.0', commit: SHA });
    // A loose ref in the common directory wins over the packed one, as in git.
    const other = 'c0ffee0e7b6f0d1c2a3b4c5d6e7f8091a2b3c4d5';
    mkdirSync(join(main, '.git/refs/heads'), { recursive: true });
    writeFileSync(join(main, '.git/refs/heads/feature'), `${other}\n`);
    expect(buildInfo(undefined, worktree).commit).toBe(other);
  });
  it('names the commit of this checkout as git does (a clone or a worktree)', () => {
    const head = execFileSync('git', ['rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
    expect(buildInfo(undefined).commit).toBe(head);
  });
});
