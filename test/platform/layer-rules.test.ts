/**
 * The layer rules of STYLE.md (`.dependency-cruiser.cjs`, run by `npm run lint` in CI) fail on a
 * planted violation: each case writes a tiny tree under a temporary `src/` and runs the real
 * `depcruise` binary with the project's configuration on it. A tree that follows every rule is
 * the control: it must pass, so a rule that rejects everything would fail here too.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const DEPCRUISE = join(ROOT, 'node_modules/.bin/depcruise');
const CONFIG = join(ROOT, '.dependency-cruiser.cjs');
const scratch: string[] = [];
afterAll(() => {
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

/** Writes `files` (path under src/ -> source) into a fresh directory and runs depcruise on it. */
function cruise(files: Record<string, string>): { status: number | null; output: string } {
  const dir = mkdtempSync(join(tmpdir(), 'portcullis-layers-'));
  scratch.push(dir);
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext' } }));
  for (const [path, source] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, 'src', path)), { recursive: true });
    writeFileSync(join(dir, 'src', path), source);
  }
  const run = spawnSync(DEPCRUISE, ['src', '--config', CONFIG, '--output-type', 'err'], { cwd: dir, encoding: 'utf8' });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

/** A module file that imports `target` (a relative specifier) and re-exports a value from it. */
const importing = (target: string) => `import { v } from '${target}';\nexport const w = v;\n`;
const leaf = 'export const v = 1;\n';

describe('layer rules fail on a planted violation', () => {
  it('passes a tree that follows every rule (the control)', () => {
    const run = cruise({
      'platform/db.ts': leaf,
      'kernel/access.ts': importing('../platform/db.js'),
      'modules/roles/service.ts': importing('../../kernel/access.js'),
      'modules/assignments/service.ts': importing('../roles/service.js'),
      'modules/shared/rest.ts': importing('../../kernel/access.js'),
      'http/use-rest-routes.ts': importing('../modules/roles/service.js'),
      'cli/index.ts': importing('../modules/roles/service.js'),
    });
    expect(run.output).not.toContain('error');
    expect(run.status).toBe(0);
  });

  const plants: Array<{ rule: string; files: Record<string, string> }> = [
    { rule: 'platform-knows-no-access-rule', files: { 'platform/db.ts': importing('../kernel/access.js'), 'kernel/access.ts': leaf } },
    {
      rule: 'kernel-below-modules',
      files: { 'kernel/access.ts': importing('../modules/roles/service.js'), 'modules/roles/service.ts': leaf },
    },
    { rule: 'modules-below-doors', files: { 'modules/roles/service.ts': importing('../../http/responses.js'), 'http/responses.ts': leaf } },
    {
      rule: 'module-internals-stay-inside',
      files: { 'modules/roles/service.ts': importing('../assignments/stores.js'), 'modules/assignments/stores.ts': leaf },
    },
    {
      rule: 'shared-is-not-a-feature',
      files: { 'modules/shared/rest.ts': importing('../roles/service.js'), 'modules/roles/service.ts': leaf },
    },
    { rule: 'doors-apart', files: { 'http/schema.ts': importing('../app.js'), 'app.ts': leaf } },
    { rule: 'cli-not-http', files: { 'cli/index.ts': importing('../http/responses.js'), 'http/responses.ts': leaf } },
    { rule: 'http-not-cli', files: { 'http/schema.ts': importing('../cli/index.js'), 'cli/index.ts': leaf } },
    {
      rule: 'no-prisma-in-doors',
      files: { 'cli/index.ts': importing('../generated/prisma/client.js'), 'generated/prisma/client.ts': leaf },
    },
    {
      rule: 'no-circular',
      files: {
        'modules/roles/service.ts': `import { b } from '../assignments/service.js';\nexport const a = () => b;\n`,
        'modules/assignments/service.ts': `import { a } from '../roles/service.js';\nexport const b = () => a;\n`,
      },
    },
    {
      // No file-level cycle: each arrow starts in another file, yet the two folders import each other.
      rule: 'no-feature-folder-cycle',
      files: {
        'modules/users/rest.ts': importing('../teams/rest.js'),
        'modules/teams/rest.ts': leaf,
        'modules/teams/graphql.ts': importing('../users/graphql.js'),
        'modules/users/graphql.ts': leaf,
      },
    },
  ];

  it.each(plants)('$rule', ({ rule, files }) => {
    const run = cruise(files);
    expect(run.status).not.toBe(0);
    expect(run.output).toContain(`error ${rule}:`);
  });
});
