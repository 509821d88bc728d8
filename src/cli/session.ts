/**
 * One CLI command's run against the database: configuration -> database (migrated and seeded
 * like the server's) -> module services -> the command -> its result as one JSON line.
 */
import { type Config, ConfigError, loadConfig } from '../config.js';
import { isDomainError } from '../kernel/errors.js';
import type { Services } from '../modules/services.js';
import type { Database } from '../platform/database.js';

/** Where the CLI writes and what it reads; the real process by default, replaceable in tests. */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: Record<string, string | undefined>;
}

export const EXIT_OK = 0;
/** The service refused (stderr `CODE: message`) or something failed unexpectedly. */
export const EXIT_REFUSED = 1;
/** Usage or configuration error. */
export const EXIT_USAGE = 2;

/** What a command does with the services; its result is printed as JSON. */
export type ServiceCall = (services: Services) => Promise<unknown>;

/**
 * Runs `call` on the services of the database named by `io.env` and returns the exit code.
 * Never throws: a bad configuration is EXIT_USAGE, a DomainError is EXIT_REFUSED with
 * `CODE: message` on stderr, a database that cannot be opened EXIT_REFUSED with one line naming
 * DATABASE_URL and the likely cause (platform/database-open-problem.ts), anything else
 * EXIT_REFUSED with `INTERNAL: <stack>`.
 * Before opening the database it prints `using database <absolute path>` on stderr: the file
 * the server opens with the same environment, from whatever working directory either runs.
 */
export async function runWithServices(io: CliIo, call: ServiceCall): Promise<number> {
  let db: Database | undefined;
  try {
    const config: Config = loadConfig(io.env);
    // Loaded only now, so --help and usage errors answer without starting Prisma.
    const [{ databasePath, openDatabase }, { databaseOpenProblem }, seedModule, { createServices }, { databaseClock }, { noticeBlock }] =
      await Promise.all([
        import('../platform/database.js'),
        import('../platform/database-open-problem.js'),
        import('../kernel/seed.js'),
        import('../modules/services.js'),
        import('../platform/database-clock.js'),
        import('../platform/notice.js'),
      ]);
    io.stderr(`using database ${databasePath(config.databaseUrl)}\n`);
    try {
      db = await openDatabase({ databaseUrl: config.databaseUrl });
    } catch (error) {
      const problem = databaseOpenProblem(error, config.databaseUrl);
      if (!problem) throw error;
      io.stderr(`${problem}\n`);
      return EXIT_REFUSED;
    }
    const seeded = await seedModule.seed(db.prisma, { adminLogin: config.adminLogin, adminPassword: config.adminPassword });
    if (seeded.generatedAdminPassword)
      io.stderr(noticeBlock(seedModule.firstAdminNotice(config.adminLogin, seeded.generatedAdminPassword)));
    // The database's clock, as the server's (assignment windows): on SQLite the system clock.
    const { clock, stop } = await databaseClock(db.prisma);
    const result = await call(createServices({ db: db.prisma, config, clock })).finally(stop);
    io.stdout(`${JSON.stringify(result)}\n`);
    return EXIT_OK;
  } catch (error) {
    if (error instanceof ConfigError) {
      io.stderr(`${error.message}\n`);
      return EXIT_USAGE;
    }
    if (isDomainError(error)) {
      io.stderr(`${error.code}: ${error.message}\n`);
      return EXIT_REFUSED;
    }
    io.stderr(`INTERNAL: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    return EXIT_REFUSED;
  } finally {
    await db?.close();
  }
}
