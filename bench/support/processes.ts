/**
 * Child processes of the benchmarks: the service started as `npm start` starts it (the command of
 * package.json's `start` script, run without npm in between, in its own process group), a bare
 * graphql-yoga server (bench/bare-yoga.mjs), and their resident memory read from /proc.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The project folder (the one holding package.json). */
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** A started server: its process, its port, everything it wrote to stderr, and a stop. */
export interface Started {
  proc: ChildProcess;
  port: number;
  /** Bytes the process wrote to stdout (the log lines) so far. */
  stdoutBytes: () => number;
  stderr: () => string;
  stop: () => Promise<void>;
}

/** The argv of package.json's `start` script in `root` (`tsx src/main.ts` -> node_modules/.bin/tsx ...). */
export function startCommand(root: string): string[] {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  const start = pkg.scripts.start;
  if (!start || /[|&;<>$`'"]/.test(start)) throw new Error(`package.json "start" must be a plain command: ${start}`);
  const [command = '', ...args] = start.trim().split(/\s+/);
  if (command === 'node') return [process.execPath, ...args];
  const local = join(root, 'node_modules', '.bin', command);
  return [existsSync(local) ? local : command, ...args];
}

/**
 * Spawns `argv` in `cwd` with `env` over this process's environment, in its own process group,
 * and resolves once a stdout line matches `ready` (the port is read from it with `portOf`).
 * @throws Error with the process's output when it exits first or is not ready within `timeoutMs`.
 */
export async function startProcess(options: {
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  ready: RegExp;
  portOf: (line: string) => number;
  timeoutMs?: number;
  /** Told of every whole stdout line after the ready line (the service's log lines). */
  onLine?: (line: string) => void;
}): Promise<Started> {
  const [command = '', ...args] = options.argv;
  const proc = spawn(command, args, {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let stdoutBytes = 0;
  let pending = '';
  let err = '';
  let readyLine: string | undefined;
  proc.stdout?.on('data', (chunk: Buffer) => {
    stdoutBytes += chunk.byteLength;
    if (readyLine !== undefined) {
      if (!options.onLine) return;
      const lines = (pending + chunk.toString()).split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) options.onLine(line);
      return;
    }
    pending += chunk.toString();
    const line = pending.split('\n').find((l) => options.ready.test(l));
    if (line !== undefined) {
      readyLine = line;
      pending = '';
    } else pending = pending.slice(-4096);
  });
  proc.stderr?.on('data', (chunk: Buffer) => {
    err = (err + chunk.toString()).slice(-20_000);
  });
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  const deadline = Date.now() + (options.timeoutMs ?? 120_000);
  while (readyLine === undefined) {
    if (proc.exitCode !== null || proc.signalCode !== null || Date.now() > deadline) {
      if (proc.exitCode === null) process.kill(-(proc.pid as number), 'SIGKILL');
      throw new Error(`${options.argv.join(' ')} did not start:\n${err}${pending}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const stop = async () => {
    if (proc.exitCode !== null || proc.signalCode !== null) return;
    // The start command alone, as a process manager signals it: a launcher (tsx) relays it.
    proc.kill('SIGTERM');
    const timer = setTimeout(() => process.kill(-(proc.pid as number), 'SIGKILL'), 30_000);
    await exited;
    clearTimeout(timer);
    // Whatever the group still holds (a launcher's child that outlived it).
    try {
      process.kill(-(proc.pid as number), 'SIGKILL');
    } catch {
      // The group is gone already.
    }
  };
  return { proc, port: options.portOf(readyLine), stdoutBytes: () => stdoutBytes, stderr: () => err, stop };
}

/**
 * Starts the service of `root` as `npm start` would, on 127.0.0.1 at a free port. `nodeArgs`
 * (`--cpu-prof`, which NODE_OPTIONS refuses) go right after the command: node and tsx take them.
 */
export function startService(
  root: string,
  env: Record<string, string>,
  nodeArgs: string[] = [],
  onLine?: (line: string) => void,
): Promise<Started> {
  const [command = '', ...args] = startCommand(root);
  return startProcess({
    argv: [command, ...nodeArgs, ...args],
    cwd: root,
    env: { PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
    ready: /"msg":"portcullis listening/,
    portOf: (line) => (JSON.parse(line) as { port: number }).port,
    ...(onLine && { onLine }),
  });
}

/** Starts bench/bare-yoga.mjs: graphql-yoga with a one-field schema and its defaults. */
export function startBareYoga(extraNodeArgs: string[] = []): Promise<Started> {
  return startProcess({
    argv: [process.execPath, ...extraNodeArgs, join(ROOT, 'bench', 'bare-yoga.mjs')],
    cwd: ROOT,
    env: { PORT: '0' },
    ready: /^listening \d+/,
    portOf: (line) => Number(line.split(' ')[1]),
  });
}

function children(pid: number): number[] {
  const out: number[] = [];
  try {
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      const text = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim();
      if (text) out.push(...text.split(/\s+/).map(Number));
    }
  } catch {
    // The process is gone: no children.
  }
  return out;
}

function vmRss(pid: number): number {
  try {
    const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/**
 * Resident memory (VmRSS, bytes) of `pid` and all its descendants: what the start command costs
 * the machine (a launcher such as tsx runs the server as its own child). Zero when gone.
 */
export function treeRss(pid: number): number {
  let total = 0;
  const queue = [pid];
  while (queue.length > 0) {
    const next = queue.pop() as number;
    total += vmRss(next);
    queue.push(...children(next));
  }
  return total;
}

/** Clock ticks per second of /proc/<pid>/stat times (USER_HZ: 100 on Linux). */
const TICKS_PER_SECOND = 100;

function cpuTicks(pid: number): number {
  try {
    // Fields after the command name (which may hold spaces, hence the last ')'): utime is the 12th, stime the 13th.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
}

/** The kernel keeps scheduler statistics (CONFIG_SCHEDSTATS): CPU time to the nanosecond. */
const SCHEDSTAT = existsSync('/proc/self/schedstat');

/**
 * CPU nanoseconds `pid` has run so far: the sum over its threads of the kernel's scheduler
 * statistics (/proc/<pid>/task/<tid>/schedstat, first field: time on a CPU, in ns), or, where
 * the kernel keeps none, its utime + stime in clock ticks (10 ms resolution).
 */
function cpuNs(pid: number): number {
  if (!SCHEDSTAT) return (cpuTicks(pid) * 1e9) / TICKS_PER_SECOND;
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return 0; // the process is gone
  }
  let total = 0;
  for (const task of tasks) {
    try {
      total += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // the thread ended meanwhile
    }
  }
  return total;
}

/**
 * CPU time (user + system, milliseconds, to the microsecond where the kernel keeps scheduler
 * statistics) used so far by `pid` and all its descendants: what requests cost the server, much
 * less disturbed by other processes on a busy machine than its throughput is.
 */
export function treeCpuMs(pid: number): number {
  let ns = 0;
  const queue = [pid];
  while (queue.length > 0) {
    const next = queue.pop() as number;
    ns += cpuNs(next);
    queue.push(...children(next));
  }
  return ns / 1e6;
}

/** Samples `treeRss(pid)` every `everyMs` until stopped; answers the largest sample. */
export function sampleRss(pid: number, everyMs = 250): { stop: () => number } {
  let max = treeRss(pid);
  const timer = setInterval(() => {
    max = Math.max(max, treeRss(pid));
  }, everyMs);
  return {
    stop: () => {
      clearInterval(timer);
      return Math.max(max, treeRss(pid));
    },
  };
}
