/**
 * What build is running: the package version and the commit, for `GET /api/health` (Grafana's
 * `version` and `commit` fields) and the `portcullis_build_info` metric.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The version of package.json and the commit id (`unknown` when none can be found). */
export interface BuildInfo {
  version: string;
  commit: string;
}

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const COMMIT = /^[0-9a-f]{7,64}$/;

/** The commit `.git/HEAD` points to, through a loose or a packed ref; undefined when unreadable. */
function gitCommit(root: string): string | undefined {
  try {
    const git = join(root, '.git');
    if (!existsSync(join(git, 'HEAD'))) return undefined;
    const head = readFileSync(join(git, 'HEAD'), 'utf8').trim();
    if (COMMIT.test(head)) return head; // detached HEAD
    const ref = /^ref: (refs\/[\w./-]+)$/.exec(head)?.[1];
    if (!ref || ref.includes('..')) return undefined;
    if (existsSync(join(git, ref))) return readFileSync(join(git, ref), 'utf8').trim();
    const packed = existsSync(join(git, 'packed-refs')) ? readFileSync(join(git, 'packed-refs'), 'utf8') : '';
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
 * checkout points to (a `npm start` from a clone), else `unknown`. Reads files only; never throws.
 */
export function buildInfo(configured: string | undefined, root: string = ROOT): BuildInfo {
  const fromGit = configured === undefined ? gitCommit(root) : undefined;
  const commit = configured ?? (fromGit && COMMIT.test(fromGit) ? fromGit : 'unknown');
  return { version: packageVersion(root), commit };
}
