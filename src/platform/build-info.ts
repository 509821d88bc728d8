/**
 * What build is running: the package version and the commit, for `GET /api/health` (Grafana's
 * `version` and `commit` fields) and the `portcullis_build_info` metric.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The version of package.json and the commit id (`unknown` when none can be found). */
export interface BuildInfo {
  version: string;
  commit: string;
}

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const COMMIT = /^[0-9a-f]{7,64}$/;

/**
 * The git directory of the checkout at `root` and its common directory (where shared refs live):
 * both `root/.git` in a clone; in a linked worktree `.git` is a file `gitdir: <path>` naming the
 * worktree's own directory (its HEAD), whose `commondir` file names the repository's (git-worktree(1)).
 */
function gitDirs(root: string): { git: string; common: string } | undefined {
  const dotGit = join(root, '.git');
  if (!existsSync(dotGit)) return undefined;
  if (statSync(dotGit).isDirectory()) return { git: dotGit, common: dotGit };
  const pointer = /^gitdir: (.+)$/m.exec(readFileSync(dotGit, 'utf8'))?.[1]?.trim();
  if (!pointer) return undefined;
  const git = resolve(root, pointer);
  const commonFile = join(git, 'commondir');
  const common = existsSync(commonFile) ? resolve(git, readFileSync(commonFile, 'utf8').trim()) : git;
  return { git, common };
}

/**
 * The commit HEAD points to, through a loose or a packed ref (per-worktree refs first, then the
 * shared ones), in a clone or a linked worktree; undefined when unreadable.
 */
function gitCommit(root: string): string | undefined {
  try {
    const dirs = gitDirs(root);
    if (!dirs || !existsSync(join(dirs.git, 'HEAD'))) return undefined;
    const head = readFileSync(join(dirs.git, 'HEAD'), 'utf8').trim();
    if (COMMIT.test(head)) return head; // detached HEAD
    const ref = /^ref: (refs\/[\w./-]+)$/.exec(head)?.[1];
    if (!ref || ref.includes('..')) return undefined;
    for (const dir of [dirs.git, dirs.common]) {
      if (existsSync(join(dir, ref))) return readFileSync(join(dir, ref), 'utf8').trim();
    }
    const packedFile = join(dirs.common, 'packed-refs');
    const packed = existsSync(packedFile) ? readFileSync(packedFile, 'utf8') : '';
    return packed
      .split('\n')
      .map((line) => line.split(' '))
      .find(([, name]) => name === ref)?.[0];
  } catch {
    return undefined;
  }
}

/** The `version` of package.json, `unknown` when unreadable. */
export function packageVersion(root: string = ROOT): string {
  try {
    return (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version?: string }).version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

/**
 * The running build: `commit` is `configured` (COMMIT_SHA) when given, else what `.git` of the
 * checkout points to (a `npm start` from a clone or a git worktree), else `unknown`. Reads files only; never throws.
 */
export function buildInfo(configured: string | undefined, root: string = ROOT): BuildInfo {
  const fromGit = configured === undefined ? gitCommit(root) : undefined;
  const commit = configured ?? (fromGit && COMMIT.test(fromGit) ? fromGit : 'unknown');
  return { version: packageVersion(root), commit };
}
