/**
 * The image, checked on the Dockerfile's syntax tree (dockerfile-ast, the
 * parser of the Docker language server), since no Docker daemon or hadolint runs here: two
 * stages (build with every dependency, run with production ones), a non-root user, the database
 * on a /data volume, a health check on /api/health that needs no curl, the port exposed, a
 * shutdown by SIGTERM, and a .dockerignore that keeps local state out but the sources in.
 */
import { readFileSync } from 'node:fs';
import { DockerfileParser, type Instruction } from 'dockerfile-ast';
import { describe, expect, it } from 'vitest';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const dockerfile = DockerfileParser.parse(read('Dockerfile'));

/** The instructions of each stage, FROM first; a stage is named by its `AS` name. */
function stages(): Map<string, Instruction[]> {
  const result = new Map<string, Instruction[]>();
  let current: Instruction[] | undefined;
  for (const instruction of dockerfile.getInstructions()) {
    if (instruction.getKeyword() === 'FROM') {
      current = [instruction];
      const name = dockerfile
        .getFROMs()
        .find((f) => f.getRange().start.line === instruction.getRange().start.line)
        ?.getBuildStage();
      result.set(name ?? `stage${result.size}`, current);
    } else current?.push(instruction);
  }
  return result;
}

const text = (i: Instruction) => i.getArgumentsContent() ?? '';
/** `--name=value` flags of COPY, HEALTHCHECK, ... as `name=value`. */
const flags = (i: Instruction): string[] =>
  'getFlags' in i && typeof i.getFlags === 'function'
    ? (i.getFlags() as { getName(): string; getValue(): string | null }[]).map((f) => `${f.getName()}=${f.getValue() ?? ''}`)
    : [];
const of = (list: Instruction[], keyword: string) => list.filter((i) => i.getKeyword() === keyword);

/** The ENV values set in `list`, `NAME=value` forms read by the parser. */
function envOf(list: Instruction[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const e of dockerfile.getENVs()) {
    if (!list.includes(e)) continue;
    for (const p of e.getProperties()) env[p.getName()] = p.getValue() ?? '';
  }
  return env;
}

describe('Dockerfile', () => {
  const all = stages();
  const names = [...all.keys()];
  const build = all.get('build') ?? [];
  const runtime = all.get(names.at(-1) ?? '') ?? [];

  it('builds in one stage and runs from a slim Node image of the supported line in the last', () => {
    expect(names).toEqual(['build', 'runtime']);
    const nodeVersion = dockerfile.getInitialARGs().find((a) => a.getProperty()?.getName() === 'NODE_VERSION');
    const version = nodeVersion?.getProperty()?.getValue() ?? '';
    const [major = 0, minor = 0] = version.split('.').map(Number);
    const engines = (JSON.parse(read('package.json')) as { engines: { node: string } }).engines.node; // ">=20.19"
    const [minMajor = 0, minMinor = 0] = engines.replace('>=', '').split('.').map(Number);
    expect(major * 1000 + minor, `${version} vs ${engines}`).toBeGreaterThanOrEqual(minMajor * 1000 + minMinor);
    for (const stage of [build, runtime]) expect(text(stage[0] as Instruction)).toMatch(/^node:\$\{NODE_VERSION\}-bookworm-slim AS /);
  });

  it('installs with the lockfile and dev dependencies in the build stage, then keeps production ones only', () => {
    const runs = of(build, 'RUN').map(text).join('\n');
    expect(runs).toContain('npm ci');
    expect(runs).toContain('npm prune --omit=dev');
    expect(of(runtime, 'RUN').map(text).join('\n')).not.toMatch(/npm (ci|install)|apt-get install/);
    const copies = of(runtime, 'COPY');
    expect(copies.map((c) => [flags(c), text(c)])).toEqual([[['from=build'], '/app /app']]);
  });

  it('runs as the unprivileged node user, with only /data writable and declared a volume', () => {
    const users = of(runtime, 'USER').map(text);
    expect(users).toEqual(['node']);
    const userLine = of(runtime, 'USER')[0]?.getRange().start.line ?? 0;
    // Nothing runs as root after the switch.
    expect(runtime.filter((i) => i.getRange().start.line > userLine && i.getKeyword() === 'RUN')).toEqual([]);
    expect(of(runtime, 'RUN').map(text).join('\n')).toContain('chown node:node /data');
    expect(of(runtime, 'VOLUME').map(text)).toEqual(['["/data"]']);
    expect(envOf(runtime).DATABASE_URL).toBe('file:/data/portcullis.db');
  });

  it('checks /api/health with Node itself (no curl in a slim image) and exposes the port it listens on', () => {
    const [check, ...more] = dockerfile.getHEALTHCHECKs();
    expect(more).toEqual([]);
    const args = text(check as Instruction);
    expect(flags(check as Instruction)).toContainEqual(expect.stringMatching(/^start-period=\d+s$/));
    expect(args).toContain('CMD ["node", "-e", "fetch(');
    expect(args).toContain('/api/health');
    expect(args).not.toMatch(/curl|wget/);
    const env = envOf(runtime);
    expect(of(runtime, 'EXPOSE').map(text)).toEqual([env.PORT]);
    expect(env.HOST).toBe('0.0.0.0');
  });

  it('starts the server as PID 1 in exec form, as `npm start` does (its V8 flags, the built server), stopped by SIGTERM, naming its commit', () => {
    const start = (JSON.parse(read('package.json')) as { scripts: { start: string } }).scripts.start.split(' ');
    expect(start[0]).toBe('node');
    expect(of(runtime, 'CMD').map(text)).toEqual([JSON.stringify(start).replaceAll('","', '", "')]);
    expect(of(runtime, 'STOPSIGNAL').map(text)).toEqual(['SIGTERM']);
    expect(of(runtime, 'ARG').map(text)).toEqual(['COMMIT_SHA=']);
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the Dockerfile's own variable syntax
    expect(envOf(runtime).COMMIT_SHA).toBe('${COMMIT_SHA}');
  });
});

describe('.dockerignore', () => {
  const patterns = read('.dockerignore')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));

  it('keeps local state, secrets and dependencies out of the build context', () => {
    for (const path of ['.git', 'node_modules', 'data', '*.db', '.env', 'dist']) expect(patterns).toContain(path);
  });

  it('keeps in what the build and the server read', () => {
    const needed = ['src', 'prisma', 'web', 'vendor', 'scripts', 'bin', 'package.json', 'package-lock.json', 'prisma.config.ts'];
    for (const path of needed) expect(patterns.filter((p) => p === path || p === `${path}/` || p === '*')).toEqual([]);
  });
});
