/**
 * The README's five-minute tour and docs/walkthrough.md, run as printed (a
 * newcomer's first hour works verbatim). Each is a session of its own, with its own
 * server on its own fresh database, as a reader following only that page would have. Its first
 * `sh` block starts the server (`npm start`, in the background here); the others run in order in
 * one bash session with `set -euo pipefail`, so every command must exit 0 and, since every curl
 * there is `curl -fsS` (readme-text.test.ts), every HTTP answer must be 2xx. Where the page shows
 * an answer (a `json` or `text` block after the command), the command's output must be exactly that.
 *
 * Nothing in the commands is substituted. The environment differs from a newcomer's in two
 * variables only, both read by the commands themselves: `PORT` (a free port; the walk-through
 * reads it as `${PORT:-3000}`) and `DATABASE_URL` (a fresh file in a temporary folder, so the
 * project's own data/ is left alone), seen alike by the server and the CLI, as the default would be.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databasePath } from '../../src/platform/database.js';
import { ownDatabaseUrl, type TestDatabase } from '../support/postgres.js';
import { ROOT, readDoc, type Step, WALK_THROUGHS, walkThroughSteps } from './markdown.js';

/** A newcomer's shell has none of the service's settings: drop any the test runner has. */
const SETTING =
  /^(PORT|HOST|DATABASE_URL|ADMIN_|EDITION$|API_KEY_|LOG_LEVEL$|LOGIN_|COOKIE_|TRUST_PROXY$|TOKEN_|BRUTE_FORCE_|DISABLE_BRUTE_|ROOT_URL$|AUTH_|PROVISIONING_PATH$|CORS_|MAX_REQUEST_|GRAPHQL_|METRICS_|SHUTDOWN_)/;

const START_TIMEOUT_MS = 180_000;
const RUN_TIMEOUT_MS = 420_000;

/** One page's run: its folder (database, step files), server and environment. */
interface Session {
  file: string;
  dir: string;
  port: number;
  env: NodeJS.ProcessEnv;
  /** Its own database: a file in `dir`, or one on the run's PostgreSQL (`npm run test:postgres`). */
  database: TestDatabase;
  server?: ChildProcess;
  serverOutput: string;
}

/** A port nobody listens on right now. */
async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address ? resolvePort(address.port) : reject(new Error('no port'))));
    });
  });
}

/** Resolves once GET /api/health answers 200; rejects when the server exits or takes too long. */
async function waitForServer(session: Session, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`the server stopped:\n${session.serverOutput}`);
    try {
      if ((await fetch(`http://127.0.0.1:${session.port}/api/health`)).status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error(`the server did not answer within ${START_TIMEOUT_MS} ms:\n${session.serverOutput}`);
}

/**
 * Starts the page's first block (the server) on a free port and a fresh database in a folder of
 * its own. @throws Error when the first block does not start the server, or it never answers.
 */
async function startSession(file: string, first: Step | undefined): Promise<Session> {
  if (!first || !/\bnpm start\b/.test(first.command.text))
    throw new Error(`${file}: the walk-through must start the server in its first block`);
  const dir = mkdtempSync(join(tmpdir(), 'portcullis-walkthrough-'));
  const env: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !SETTING.test(k)));
  const port = await freePort();
  env.PORT = String(port);
  const database = await ownDatabaseUrl(join(dir, 'walkthrough.db'));
  env.DATABASE_URL = database.url;
  const session: Session = { file, dir, port, env, database, serverOutput: '' };
  const server = spawn('bash', ['-c', first.command.text], { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  session.server = server;
  const keep = (chunk: Buffer) => {
    session.serverOutput += chunk.toString();
  };
  server.stdout?.on('data', keep);
  server.stderr?.on('data', keep);
  await waitForServer(session, server);
  return session;
}

/** Stops the server block's whole process group (bash -> npm -> node) and removes the folder. */
async function endSession(session: Session | undefined): Promise<void> {
  if (!session) return;
  const child = session.server;
  if (child?.pid && child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((r) => child.once('exit', r));
    try {
      process.kill(-child.pid, 'SIGTERM');
      const timer = setTimeout(() => {
        try {
          process.kill(-(child.pid as number), 'SIGKILL');
        } catch {
          // already gone
        }
      }, 15_000);
      await exited;
      clearTimeout(timer);
    } catch {
      // already gone
    }
  }
  await session.database.drop();
  rmSync(session.dir, { recursive: true, force: true });
}

/** What a step printed. */
interface Ran {
  stdout: string;
  stderr: string;
}

/**
 * Runs steps 1.. in one bash session, each block sourced as written with its output kept apart.
 * @returns what each step printed, or throws naming the page, the block and the command that failed.
 */
function runSteps(session: Session, commandSteps: Step[]): Ran[] {
  const { dir, env, file: page } = session;
  const file = (i: number, ext: string) => join(dir, `step-${String(i).padStart(2, '0')}.${ext}`);
  const script = [
    'set -Eeuo pipefail',
    `trap 'printf "%s\\n" "$BASH_COMMAND" > ${JSON.stringify(join(dir, 'failed'))}' ERR`,
    ...commandSteps.map((step, i) => {
      writeFileSync(file(i, 'sh'), `${step.command.text}\n`);
      return `. ${JSON.stringify(file(i, 'sh'))} > ${JSON.stringify(file(i, 'out'))} 2> ${JSON.stringify(file(i, 'err'))}; echo ${i} > ${JSON.stringify(join(dir, 'done'))}`;
    }),
  ].join('\n');
  try {
    execFileSync('bash', ['-c', script], { cwd: ROOT, env, stdio: 'pipe', timeout: RUN_TIMEOUT_MS });
  } catch (error) {
    const done = existsSync(join(dir, 'done')) ? Number(readFileSync(join(dir, 'done'), 'utf8')) : -1;
    const failed = commandSteps[done + 1];
    const read = (path: string) => (existsSync(path) ? readFileSync(path, 'utf8') : '');
    throw new Error(
      [
        `${page}:${failed?.command.line ?? '?'}: the walk-through stopped (${(error as Error).message.split('\n')[0]})`,
        `block:\n${failed?.command.text ?? ''}`,
        `failed command: ${read(join(dir, 'failed')).trim()}`,
        `stdout:\n${read(file(done + 1, 'out'))}`,
        `stderr:\n${read(file(done + 1, 'err'))}`,
        `server:\n${session.serverOutput.slice(-4000)}`,
      ].join('\n\n'),
    );
  }
  return commandSteps.map((_, i) => ({ stdout: readFileSync(file(i, 'out'), 'utf8'), stderr: readFileSync(file(i, 'err'), 'utf8') }));
}

beforeAll(() => {
  execFileSync('bash', ['-c', 'command -v curl'], { stdio: 'ignore' });
});

describe.each(WALK_THROUGHS)('$file, "$heading"', ({ file, heading }) => {
  const steps = walkThroughSteps(readDoc(file), heading, file);
  let session: Session | undefined;

  beforeAll(async () => {
    session = await startSession(file, steps[0]);
  }, START_TIMEOUT_MS + 10_000);

  afterAll(() => endSession(session), 30_000);

  it(
    'runs as printed, in order, on a fresh database: every command exits 0 and answers what the page shows',
    () => {
      const current = session as Session;
      const commandSteps = steps.slice(1);
      const ran = runSteps(current, commandSteps);
      commandSteps.forEach((step, i) => {
        const out = ran[i] as Ran;
        const where = `${file}:${step.command.line}\n${step.command.text}\nstderr: ${out.stderr}`;
        if (step.expected?.lang === 'json') expect(JSON.parse(out.stdout), where).toEqual(JSON.parse(step.expected.text));
        if (step.expected?.lang === 'text') expect(out.stdout.trim(), where).toBe(step.expected.text.trim());
        // The CLI says which database it writes to: the server's.
        if (/\bnpx portcullis\b/.test(step.command.text))
          expect(out.stderr, where).toContain(`using database ${databasePath(current.database.url)}\n`);
      });
      expect(commandSteps.filter((s) => s.expected).length).toBeGreaterThan(5);
    },
    RUN_TIMEOUT_MS + 10_000,
  );
});
