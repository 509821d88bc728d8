/** Entry: read config, open and seed the database, build the app, listen. */
import { createServer } from 'node:http';
import { createApp } from './app.js';
import { ConfigError, loadConfig } from './config.js';
import { isDomainError } from './kernel/errors.js';
import { firstAdminNotice, seed } from './kernel/seed.js';
import { openDatabase } from './platform/database.js';
import { createLogger } from './platform/logger.js';

async function main(): Promise<void> {
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
  const log = createLogger(config.logLevel);
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    log: (msg, fields) => log.info(fields ?? {}, msg),
  });
  log.info({ path: database.path }, 'database ready');
  const seeded = await seed(database.prisma, {
    adminLogin: config.adminLogin,
    adminPassword: config.adminPassword,
    log: (msg, fields) => log.info(fields ?? {}, msg),
  });
  // Printed once, outside the logger, so the secret never reaches log storage.
  if (seeded.generatedAdminPassword) process.stdout.write(`${firstAdminNotice(config.adminLogin, seeded.generatedAdminPassword)}\n`);
  const app = createApp({ db: database.prisma, config, log });
  // RBAC provisioning files, after migrate + seed; a bad file stops the start, changing nothing.
  try {
    const provisioned = await app.services.provisioning.apply();
    log.info({ path: config.provisioningPath, ...provisioned }, 'provisioning applied');
  } catch (error) {
    if (isDomainError(error)) {
      process.stderr.write(`portcullis failed to start: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const server = createServer(app.yoga);
  server.listen(config.port, config.host, () => {
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    log.info(
      { port, host: config.host, edition: config.edition },
      `portcullis listening on http://${config.host === '0.0.0.0' ? 'localhost' : config.host}:${port} (GraphiQL at /graphql)`,
    );
  });

  const shutdown = (signal: string) => {
    log.info({ signal }, 'shutting down');
    server.close(() => {
      void database.close().then(() => process.exit(0));
    });
    setTimeout(() => process.exit(0), 5000).unref();
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
}

main().catch((error: unknown) => {
  process.stderr.write(`portcullis failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
