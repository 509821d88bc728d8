/**
 * The CLI (bin/portcullis.mjs -> src/cli/index.ts). A few tests spawn the real launcher against a
 * temporary DATABASE_URL (process start costs seconds); the other paths call runCli in-process,
 * which is the same code minus the launcher.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import { runCli } from '../src/cli/index.js';
import { loadConfig } from '../src/config.js';
import { databasePath, openDatabase } from '../src/platform/database.js';
import { createLogger } from '../src/platform/logger.js';
import { authHeader, type Credentials } from './support/app.js';
import { onPostgres, ownDatabaseUrl, type TestDatabase } from './support/postgres.js';

const run = promisify(execFile);
const BIN = fileURLToPath(new URL('../bin/portcullis.mjs', import.meta.url));
const ROOT = fileURLToPath(new URL('..', import.meta.url));

let dir: string;
let env: Record<string, string>;
/** The line every command that opens the database prints first on stderr. */
let databaseLine: string;

let database: TestDatabase;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'portcullis-cli-'));
  database = await ownDatabaseUrl(join(dir, 'cli.db'));
  env = { DATABASE_URL: database.url, ADMIN_LOGIN: 'admin', ADMIN_PASSWORD: 'cli-admin-password', LOG_LEVEL: 'silent' };
  databaseLine = `using database ${databasePath(database.url)}\n`;
});
afterAll(async () => {
  await database?.drop();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * Spawns `node bin/portcullis.mjs ...args` in `cwd` (the project folder by default) with the test
 * environment plus `extraEnv`; resolves with the exit code and output.
 */
async function spawnCli(
  args: string[],
  options: { cwd?: string; extraEnv?: Record<string, string> } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, ...args], {
      cwd: options.cwd ?? ROOT,
      env: { ...process.env, ...env, ...options.extraEnv },
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    if (typeof e.code !== 'number') throw error;
    return { code: e.code, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

/** runCli in this process, output captured. */
async function inProcess(args: string[], extraEnv: Record<string, string> = {}) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, {
    stdout: (t) => {
      stdout += t;
    },
    stderr: (t) => {
      stderr += t;
    },
    env: { ...env, ...extraEnv },
  });
  return { code, stdout, stderr };
}

/** GraphQL against the app built on the CLI's database, as the server would answer. */
async function graphqlOnCliDb(query: string, auth: Credentials, extraEnv: Record<string, string> = {}) {
  const config = loadConfig({ ...env, ...extraEnv });
  const database = await openDatabase({ databaseUrl: config.databaseUrl });
  try {
    const app = createApp({ db: database.prisma, config, log: createLogger('silent') });
    const res = await app.yoga.fetch('http://test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: authHeader(auth) },
      body: JSON.stringify({ query }),
    });
    return {
      status: res.status,
      body: (await res.json()) as { data?: Record<string, unknown>; errors?: { extensions?: { code?: string } }[] },
    };
  } finally {
    await database.close();
  }
}

describe('bin/portcullis.mjs (spawned)', () => {
  it('user create: exit 0, prints the id; the user can authenticate with its org role', async () => {
    const res = await spawnCli([
      'user',
      'create',
      '--login',
      'ops',
      '--email',
      'ops@example.test',
      '--password',
      'ops-password',
      '--org-role',
      'Editor',
    ]);
    expect(res.stderr).toBe(databaseLine);
    expect(res.code).toBe(0);
    const created = JSON.parse(res.stdout) as { id: number; login: string; orgId: number };
    expect(created).toMatchObject({ login: 'ops', orgId: 1, isServiceAdmin: false });
    expect(created.id).toBeGreaterThan(1);
    expect(res.stdout).not.toContain('ops-password');

    const me = await graphqlOnCliDb('{ viewer { id login orgId orgRole } }', { login: 'ops', password: 'ops-password' });
    expect(me.body.data?.viewer).toEqual({ id: created.id, login: 'ops', orgId: 1, orgRole: 'Editor' });
    const wrong = await graphqlOnCliDb('{ viewer { id } }', { login: 'ops', password: 'nope' });
    expect(wrong.status).toBe(401);
  });

  it('a duplicate: exit 1 with CODE: message on stderr', async () => {
    const res = await spawnCli(['user', 'create', '--login', 'ops', '--email', 'other@example.test', '--password', 'whatever']);
    expect(res.code).toBe(1);
    expect(res.stdout).toBe('');
    expect(res.stderr.startsWith(databaseLine)).toBe(true);
    expect(res.stderr.slice(databaseLine.length)).toMatch(/^USER_ALREADY_EXISTS: .*already exists/);
  });

  // SQLite-specific: resolution of relative file paths (a PostgreSQL URL names a server).
  it.skipIf(onPostgres)(
    'from another working directory, a relative DATABASE_URL opens the file the server opens, and says which',
    async () => {
      // A folder of the project (where someone may well stand) and one outside it.
      const file = join(dir, 'shared.db');
      const url = `file:${relative(ROOT, file)}`;
      // Deep enough that the relative path, wrongly resolved against it, names another file (from
      // a folder as deep as the checkout under a common parent it would name the same one).
      let outside = join(dir, 'somewhere', 'else');
      while (resolve(outside, relative(ROOT, file)) === file) outside = join(outside, 'deeper');
      mkdirSync(outside, { recursive: true });
      // Resolved against the project folder, as `npm start` (which always runs there) resolves it.
      expect(databasePath(url)).toBe(file);
      for (const [n, cwd] of [join(ROOT, 'src'), outside].entries()) {
        const login = `far-${n}`;
        const res = await spawnCli(['user', 'create', '--login', login, '--email', `${login}@example.test`, '--password', 'far-password'], {
          cwd,
          extraEnv: { DATABASE_URL: url },
        });
        expect(res.stderr).toBe(`using database ${file}\n`);
        expect(res.code).toBe(0);
        // No second database next to the working directory.
        expect(existsSync(resolve(cwd, relative(ROOT, file)))).toBe(false);
        // The server's view of that database (same openDatabase) knows the user.
        const me = await graphqlOnCliDb('{ viewer { login } }', { login, password: 'far-password' }, { DATABASE_URL: url });
        expect(me.body.data?.viewer).toEqual({ login });
      }
    },
  );

  it('a usage error: exit 2 with the command usage', async () => {
    const res = await spawnCli(['team', 'create']);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain("required option '--name <name>' not specified");
    expect(res.stderr).toContain('Usage: portcullis team create');
    expect(res.stderr).not.toContain('using database');
  });
});

describe('runCli (in process)', () => {
  it('team create, then team add-member of a user created before', async () => {
    const team = await inProcess(['team', 'create', '--name', 'Operators', '--email', 'ops-team@example.test']);
    expect(team.code).toBe(0);
    const { id: teamId } = JSON.parse(team.stdout) as { id: number };
    const users = await graphqlOnCliDb('{ users { id login } }', { login: 'admin', password: 'cli-admin-password' });
    const ops = ((users.body.data?.users ?? []) as { id: number; login: string }[]).find((u) => u.login === 'ops');
    const added = await inProcess(['team', 'add-member', '--team', String(teamId), '--user', String(ops?.id)]);
    expect(added.stderr).toBe(databaseLine);
    expect(added.code).toBe(0);
    expect(JSON.parse(added.stdout)).toEqual({ teamId, userId: ops?.id, memberIds: [ops?.id] });
  });

  it.each([['--help'], ['help']])('%s lists every command, without opening the database', async (flag) => {
    const res = await inProcess([flag]);
    expect(res.code).toBe(0);
    expect(res.stderr).toBe('');
    for (const cmd of ['user create', 'team create', 'team add-member', 'sa create', 'org create'])
      expect(res.stdout).toContain(`portcullis ${cmd}`);
  });

  // SQLite-specific: resolution of relative file paths (a PostgreSQL URL names a server).
  it.skipIf(onPostgres)(
    'prints the database file it uses, resolving a relative DATABASE_URL against the project folder as the server does',
    async () => {
      const file = join(dir, 'relative.db');
      const res = await inProcess(['org', 'create', '--name', 'Elsewhere'], { DATABASE_URL: `file:${relative(ROOT, file)}` });
      expect(res.code).toBe(0);
      expect(res.stderr).toBe(`using database ${file}\n`);
      expect(JSON.parse(res.stdout)).toMatchObject({ name: 'Elsewhere' });
    },
  );

  it('sa create: a service account with the role, which cannot sign in with basic auth', async () => {
    const res = await inProcess(['sa', 'create', '--name', 'Deploy Bot', '--role', 'Editor']);
    expect(res.stderr).toBe(databaseLine);
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({ login: 'sa-1-deploy-bot', name: 'Deploy Bot', orgId: 1, role: 'Editor' });
    const attempt = await graphqlOnCliDb('{ viewer { id } }', { login: 'sa-1-deploy-bot', password: '' });
    expect(attempt.status).toBe(401);
  });

  it('org create, then user create --org and team create --org in it', async () => {
    const org = await inProcess(['org', 'create', '--name', 'Tenant Two']);
    expect(org.code).toBe(0);
    const { id: orgId } = JSON.parse(org.stdout) as { id: number };
    expect(orgId).toBeGreaterThan(1);
    const user = await inProcess([
      'user',
      'create',
      '--login',
      'tenant-admin',
      '--email',
      't@example.test',
      '--password',
      'tenant-pw',
      '--org-role',
      'Admin',
      '--org',
      String(orgId),
    ]);
    expect(user.code).toBe(0);
    const team = await inProcess(['team', 'create', '--name', 'Tenant Team', '--org', String(orgId)]);
    expect(JSON.parse(team.stdout)).toMatchObject({ orgId, name: 'Tenant Team' });
    const { id: userId } = JSON.parse(user.stdout) as { id: number };
    // the team's organization is used when --org is omitted
    const added = await inProcess(['team', 'add-member', '--team', String(JSON.parse(team.stdout).id), '--user', String(userId)]);
    expect(added.code).toBe(0);
    const me = await graphqlOnCliDb('{ viewer { orgId orgRole } teams { name members { login } } }', {
      login: 'tenant-admin',
      password: 'tenant-pw',
    });
    expect(me.body.data).toEqual({
      viewer: { orgId, orgRole: 'Admin' },
      teams: [{ name: 'Tenant Team', members: [{ login: 'tenant-admin' }] }],
    });
  });

  it('--service-admin makes a Service Admin', async () => {
    const res = await inProcess([
      'user',
      'create',
      '--login',
      'root2',
      '--email',
      'root2@example.test',
      '--password',
      'root2-pw',
      '--service-admin',
    ]);
    expect(JSON.parse(res.stdout)).toMatchObject({ login: 'root2', isServiceAdmin: true });
  });

  it.each([
    { args: [], stderr: /^Usage: portcullis \[options\] \[command\]/ },
    { args: ['frobnicate'], stderr: /^error: unknown command 'frobnicate'\n\nUsage: portcullis / },
    { args: ['user'], stderr: /^Usage: portcullis user / },
    { args: ['user', 'delete'], stderr: /^error: unknown command 'delete'\n\nUsage: portcullis user / },
    {
      args: ['user', 'create', '--login', 'x', '--email', 'x@example.test', '--password', 'xxxx', '--bogus'],
      stderr: /^error: unknown option '--bogus'/,
    },
    { args: ['sa', 'create', '--name', 'x'], stderr: /^error: required option '--role <None\|Viewer\|Editor\|Admin>' not specified/ },
    { args: ['team', 'add-member', '--team', 'abc', '--user', '1'], stderr: /^error: option '--team <id>' argument 'abc' is invalid/ },
    { args: ['team', 'create', '--name', 'x', '--org', '0'], stderr: /^error: option '--org <id>' argument '0' is invalid/ },
    { args: ['org', 'create', 'extra', '--name', 'x'], stderr: /^error: too many arguments for 'create'/ },
  ])('exit 2 for $args, before opening the database', async ({ args, stderr }) => {
    const res = await inProcess(args);
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(stderr);
    expect(res.stderr).not.toContain('using database');
    expect(res.stdout).toBe('');
  });

  it('exit 2 for a bad configuration, naming the variable', async () => {
    const res = await inProcess(['org', 'create', '--name', 'x'], { DATABASE_URL: 'mysql://nope' });
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('DATABASE_URL');
    expect(res.stderr).not.toContain('using database');
  });

  it.each([
    { args: ['sa', 'create', '--name', 'x', '--role', 'Boss'], code: 'VALIDATION_FAILED' },
    { args: ['team', 'create', '--name', 'x', '--org', '999'], code: 'ORG_NOT_FOUND' },
    { args: ['team', 'add-member', '--team', '999', '--user', '1'], code: 'TEAM_NOT_FOUND' },
    { args: ['org', 'create', '--name', 'Tenant Two'], code: 'ALREADY_EXISTS' },
    { args: ['user', 'create', '--login', 'bad login', '--email', 'b@example.test', '--password', 'xxxx'], code: 'VALIDATION_FAILED' },
  ])('exit 1 with $code for $args', async ({ args, code }) => {
    const res = await inProcess(args);
    expect(res.code).toBe(1);
    expect(res.stderr.startsWith(`${databaseLine}${code}: `)).toBe(true);
  });

  it('help for each command: exit 0', async () => {
    for (const cmd of [
      ['user', 'create'],
      ['team', 'create'],
      ['team', 'add-member'],
      ['sa', 'create'],
      ['org', 'create'],
    ]) {
      const res = await inProcess([...cmd, '--help']);
      expect(res.code).toBe(0);
      expect(res.stdout).toContain(`Usage: portcullis ${cmd.join(' ')}`);
    }
  });
});
