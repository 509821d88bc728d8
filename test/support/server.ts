/**
 * The real server process for end-to-end tests: src/main.ts started as `npm start` starts it (the
 * tsx command) or as the image does (`node --import tsx`, the Dockerfile's CMD), on 127.0.0.1 at a
 * free port with info logs unless `env` says otherwise, over the runner's environment. Its stdout
 * and stderr are collected in `output()`. Every process started is tracked, so `killServers()` in
 * an after hook leaves none behind.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const MAIN = join(ROOT, 'src/main.ts');
const running = new Set<ChildProcess>();

/** A launched server: the process, everything it printed so far, and its exit code once it exits. */
export interface ServerProcess {
  proc: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/** How to start it: `npm start` (default; `cwd` may be any folder) or `image` (cwd is the repository). */
export interface LaunchOptions {
  as?: 'npm start' | 'image';
  cwd?: string;
}

/** Spawns the server with `env` (PORT 0, HOST 127.0.0.1 and LOG_LEVEL info unless given). */
export function launchServer(env: Record<string, string>, options: LaunchOptions = {}): ServerProcess {
  // `--import tsx` is resolved from the working folder, so the image form runs from the repository.
  const args = options.as === 'image' ? ['--import', 'tsx', MAIN] : [join(ROOT, 'node_modules/tsx/dist/cli.mjs'), MAIN];
  const proc = spawn(process.execPath, args, {
    cwd: options.as === 'image' ? ROOT : (options.cwd ?? ROOT),
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group, so killServers() reaches the server itself, not only the tsx launcher.
    detached: true,
  });
  running.add(proc);
  let out = '';
  const collect = (chunk: Buffer) => {
    out += chunk.toString();
  };
  proc.stdout?.on('data', collect);
  proc.stderr?.on('data', collect);
  const exited = new Promise<number | null>((resolve) => {
    proc.on('exit', (code) => {
      running.delete(proc);
      resolve(code);
    });
  });
  return { proc, output: () => out, exited };
}

/**
 * Launches the server and resolves once it logs `listening`, with the port it logged.
 * @throws Error with its output when it exits first or does not listen within `timeoutMs`.
 */
export async function startServer(
  env: Record<string, string>,
  options: LaunchOptions & { timeoutMs?: number } = {},
): Promise<ServerProcess & { port: number; serverPid: number | undefined }> {
  const launched = launchServer(env, options);
  const deadline = Date.now() + (options.timeoutMs ?? 90_000);
  for (;;) {
    const line = launched
      .output()
      .split('\n')
      .find((l) => l.includes('listening'));
    if (line) {
      const { port, pid } = JSON.parse(line) as { port: number; pid?: number };
      return { ...launched, port, serverPid: pid };
    }
    if (Date.now() > deadline || launched.proc.exitCode !== null) throw new Error(`server did not start:\n${launched.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Sends SIGTERM to the server process itself (its pid, from its `listening` line) and answers the
 * launcher's exit code, which is the server's. Not to tsx's launcher: it relays a signal only if
 * the server acknowledges it within 30 ms, and otherwise kills it (exit 143), which a busy machine
 * makes happen.
 */
export function stopServer(server: ServerProcess & { serverPid?: number | undefined }): Promise<number | null> {
  if (server.serverPid !== undefined) process.kill(server.serverPid, 'SIGTERM');
  else server.proc.kill('SIGTERM');
  return server.exited;
}

/** Kills every server still running, launcher and server process alike (for an after hook). */
export function killServers(): void {
  for (const proc of running) {
    try {
      if (proc.pid !== undefined) process.kill(-proc.pid, 'SIGKILL');
    } catch {
      proc.kill('SIGKILL'); // the group is gone already: make sure of the launcher
    }
  }
}
