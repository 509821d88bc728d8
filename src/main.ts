/**
 * Entry: read config, take the port, open and seed the database, build the app, serve; on
 * SIGTERM or SIGINT, drain and stop.
 *
 * The port is taken first, so a port in use stops the start with one line (exit 1) before the
 * database is created or migrated; a database that cannot be opened (PostgreSQL unreachable, a
 * refused password, a missing database) stops it with one line naming DATABASE_URL, its password
 * hidden, and the likely cause (platform/database-open-problem.ts). Until the app is ready every request answers 503, readiness
 * included. Shutdown: readiness answers 503, the server stops accepting connections and closes
 * idle ones, requests in flight get SHUTDOWN_TIMEOUT_SECONDS to finish (then their connections
 * are closed), the database is closed, and the process exits 0 (1 when requests had to be cut
 * off). A second signal exits at once with 1. The server bounds slow and greedy clients before
 * any of the app runs (request and header timeouts, connections per address: src/http/node-server.ts).
 */

import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createApp } from './app.js';
import { ConfigError, loadConfig } from './config.js';
import { createNodeServer } from './http/node-server.js';
import { isDomainError } from './kernel/errors.js';
import { adminPasswordIgnoredNotice, firstAdminNotice, seed } from './kernel/seed.js';
import { openDatabase } from './platform/database.js';
import { databaseClock } from './platform/database-clock.js';
import { databaseOpenProblem } from './platform/database-open-problem.js';
import { createLogger, terminalDestination } from './platform/logger.js';
import { showNotice } from './platform/notice.js';
import { tuneRuntime } from './platform/runtime-tuning.js';

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

/** Ends the process with one line on stderr: a start failure the operator can act on. */
function fail(message: string, code = 1): never {
  process.stderr.write(`portcullis failed to start: ${message}\n`);
  process.exit(code);
}

/** Why listening failed, in one sentence naming the setting to change; undefined for others. */
function listenProblem(error: NodeJS.ErrnoException, host: string, port: number): string | undefined {
  const where = `${host}:${port}`;
  if (error.code === 'EADDRINUSE') return `port ${port} on ${host} is already in use (EADDRINUSE); stop the other process or set PORT`;
  if (error.code === 'EACCES') return `no permission to listen on ${where} (EACCES); ports below 1024 need privileges: set PORT`;
  if (error.code === 'EADDRNOTAVAIL') return `${host} is not an address of this machine (EADDRNOTAVAIL); set HOST`;
  return undefined;
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** Answers every request while the app is being built: 503, JSON, try again shortly. */
const starting: Handler = (_request, response) => {
  response.writeHead(503, { 'content-type': 'application/json; charset=utf-8', 'retry-after': '5', connection: 'close' });
  response.end(`${JSON.stringify({ message: 'portcullis is starting', code: 'STARTING' })}\n`);
};

async function main(): Promise<void> {
  tuneRuntime();
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const log = createLogger(config.logLevel, terminalDestination());

  let handler: Handler = starting;
  const server = createNodeServer((request, response) => handler(request, response), {
    ...config.security,
    trustProxy: config.auth.trustProxy,
  });
  try {
    await listen(server, config.port, config.host);
  } catch (error) {
    const problem = listenProblem(error as NodeJS.ErrnoException, config.host, config.port);
    if (problem) fail(problem);
    throw error;
  }

  let database: Awaited<ReturnType<typeof openDatabase>>;
  try {
    database = await openDatabase({
      databaseUrl: config.databaseUrl,
      log: (msg, fields) => log.info(fields ?? {}, msg),
    });
  } catch (error) {
    const problem = databaseOpenProblem(error, config.databaseUrl);
    if (problem) fail(problem);
    throw error;
  }
  log.info({ path: database.path }, 'database ready');
  const seeded = await seed(database.prisma, {
    adminLogin: config.adminLogin,
    adminPassword: config.adminPassword,
    log: (msg, fields) => log.info(fields ?? {}, msg),
  });
  // A block on a terminal's stderr, else one log line, whatever LOG_LEVEL (platform/notice.ts).
  if (seeded.generatedAdminPassword) showNotice(firstAdminNotice(config.adminLogin, seeded.generatedAdminPassword), log);
  if (seeded.adminPasswordIgnored) showNotice(adminPasswordIgnoredNotice(config.adminLogin), log);
  const { clock, stop: stopClock } = await databaseClock(database.prisma);
  const app = createApp({ db: database.prisma, config, log, clock });
  // RBAC provisioning files, after migrate + seed; a bad file stops the start, changing nothing.
  try {
    const provisioned = await app.services.provisioning.apply();
    log.info({ path: config.provisioningPath, ...provisioned }, 'provisioning applied');
  } catch (error) {
    if (isDomainError(error)) fail(error.message);
    throw error;
  }
  handler = app.listener;
  app.lifecycle.markReady();
  const stopPruning = app.services.changes.schedulePruning(log);
  const stopBoundaries = app.services.assignmentBoundaries.schedule(log);
  const stopRequestExpiry = app.services.accessRequestExpiry.schedule(log);
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  log.info(
    { port, host: config.host, edition: config.edition, pid: process.pid },
    `portcullis listening on http://${config.host === '0.0.0.0' ? 'localhost' : config.host}:${port} (GraphiQL at /graphql)`,
  );
  // Log lines are batched (platform/logger.ts): this one is what supervisors and scripts wait for.
  log.flush();

  let stopping = false;
  const shutdown = (signal: NodeJS.Signals) => {
    if (stopping) {
      log.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    stopping = true;
    stopPruning();
    stopBoundaries();
    stopRequestExpiry();
    stopClock();
    app.services.changeStreams.closeAll();
    app.lifecycle.markShuttingDown();
    const timeoutSeconds = config.shutdownTimeoutSeconds;
    log.info({ signal, timeoutSeconds }, 'shutting down: finishing requests in flight');
    let cutOff = false;
    const deadline = setTimeout(() => {
      cutOff = true;
      log.warn({ timeoutSeconds }, 'requests still in flight after the shutdown timeout: closing their connections');
      server.closeAllConnections();
    }, timeoutSeconds * 1000);
    // Keep-alive connections between requests would hold close() open until the deadline.
    const idle = setInterval(() => server.closeIdleConnections(), 250);
    server.close(() => {
      clearTimeout(deadline);
      clearInterval(idle);
      // Last-seen writes run after their request; let them land before the database closes.
      void app.services.sessions
        .seenWritesSettled()
        .then(() => database.close())
        .catch((error: unknown) => log.error({ err: error }, 'closing the database failed'))
        .finally(() => {
          log.info({ cutOff }, 'stopped');
          process.exit(cutOff ? 1 : 0);
        });
    });
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
}

main().catch((error: unknown) => {
  fail(error instanceof Error ? (error.stack ?? error.message) : String(error));
});
