/**
 * The layer rules of docs/architecture.md (`.dependency-cruiser.cjs`, run by `npm run lint` in CI) fail on a
 * planted violation: each case writes a tiny tree under a temporary `src/` and runs
 * dependency-cruiser with the project's configuration on it, in process through its API (the
 * `cruise` call its command line makes; a process start per case cost a second of CPU). A tree
 * that follows every rule is the control: it must pass, so a rule that rejects everything would
 * fail here too; the control also goes through the real `depcruise` binary, as `npm run lint`
 * runs it, so the command line and the API are seen to read the configuration alike.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { cruise as cruiseApi } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const DEPCRUISE = join(ROOT, 'node_modules/.bin/depcruise');
const CONFIG = join(ROOT, '.dependency-cruiser.cjs');
const OPTIONS = await extractDepcruiseOptions(CONFIG);
const scratch: string[] = [];
afterAll(() => {
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

/** Writes `files` (path under src/ -> source) into a fresh directory; answers the directory. */
function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'portcullis-layers-'));
  scratch.push(dir);
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext' } }));
  for (const [path, source] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, 'src', path)), { recursive: true });
    writeFileSync(join(dir, 'src', path), source);
  }
  return dir;
}

/** Runs dependency-cruiser's API on `files` as `depcruise src --config <project's> --output-type err` would. */
async function cruise(files: Record<string, string>): Promise<{ status: number; output: string }> {
  const dir = tree(files);
  const result = await cruiseApi(
    ['src'],
    { ...OPTIONS, baseDir: dir, outputType: 'err' },
    {},
    { tsConfig: extractTSConfig(join(dir, 'tsconfig.json')) },
  );
  return { status: result.exitCode, output: String(result.output) };
}

/** Runs the real `depcruise` binary on `files`. */
function cruiseBinary(files: Record<string, string>): { status: number | null; output: string } {
  const run = spawnSync(DEPCRUISE, ['src', '--config', CONFIG, '--output-type', 'err'], { cwd: tree(files), encoding: 'utf8' });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

/** A module file that imports `target` (a relative specifier) and re-exports a value from it. */
const importing = (target: string) => `import { v } from '${target}';\nexport const w = v;\n`;
const leaf = 'export const v = 1;\n';

describe('layer rules fail on a planted violation', () => {
  const control = {
    'platform/db.ts': leaf,
    'kernel/access.ts': importing('../platform/db.js'),
    'modules/roles/service.ts': importing('../../kernel/access.js'),
    'modules/assignments/service.ts': importing('../roles/service.js'),
    'modules/shared/rest.ts': importing('../../kernel/access.js'),
    'http/use-rest-routes.ts': importing('../modules/roles/service.js'),
    'cli/index.ts': importing('../modules/roles/service.js'),
  };
  it('passes a tree that follows every rule (the control)', async () => {
    for (const run of [await cruise(control), cruiseBinary(control)]) {
      expect(run.output).not.toContain('error');
      expect(run.output).toContain('no dependency violations found (7 modules, 6 dependencies cruised)');
      expect(run.status).toBe(0);
    }
  });
  it('the binary fails on a planted violation as the API does', () => {
    const run = cruiseBinary({ 'kernel/access.ts': importing('../modules/roles/service.js'), 'modules/roles/service.ts': leaf });
    expect(run.status).not.toBe(0);
    expect(run.output).toContain('error kernel-below-modules:');
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

  it.each(plants)('$rule', async ({ rule, files }) => {
    const run = await cruise(files);
    expect(run.status).not.toBe(0);
    expect(run.output).toContain(`error ${rule}:`);
  });
});
