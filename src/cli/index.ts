/**
 * portcullis CLI: directory bootstrap for operators without GraphQL, on commander.
 *
 *   portcullis user create --login L --email E --password P [--name N] [--org-role R] [--service-admin] [--org ID]
 *   portcullis user set-password --login L --password P
 *   portcullis team create --name N [--email E] [--org ID]
 *   portcullis team add-member --team T --user U [--org ID]
 *   portcullis sa create --name N --role R [--org ID]
 *   portcullis org create --name N
 *
 * It opens the database of DATABASE_URL (migrating it), resolved exactly as the server resolves
 * it (platform/database.ts `databasePath`: a relative path is relative to the project folder,
 * whatever the working directory), seeds it like the server does, and
 * calls the module services GraphQL and REST call (session.ts). The caller is the local
 * operator (kernel/principal.ts `localOperator`): whoever can run this on the machine already holds the
 * database file, so it acts as a Service Admin and Admin of the organization named by --org
 * (default 1) — every validation and uniqueness rule still applies.
 *
 * Output: `using database <absolute path>` on stderr, then the created or changed object as one line of
 * JSON on stdout. Exit codes: 0 done (and --help); 1 the service refused (stderr
 * `CODE: message`, e.g. `ALREADY_EXISTS: ...`) or failed; 2 usage or configuration error.
 */
import { pathToFileURL } from 'node:url';
import { Command, CommanderError } from 'commander';
import { registerAuthCommands } from './auth.js';
import type { Perform } from './options.js';
import { registerOrgCommands } from './orgs.js';
import { registerServiceAccountCommands } from './service-accounts.js';
import { type CliIo, EXIT_OK, EXIT_USAGE, runWithServices } from './session.js';
import { registerTeamCommands } from './teams.js';
import { registerUserCommands } from './users.js';

export type { CliIo } from './session.js';

/** `portcullis <area> <action> <usage>` of every command, for the top-level help. */
function fullUsages(program: Command): string[] {
  return program.commands.flatMap((area) =>
    area.commands.map((action) => `  ${program.name()} ${area.name()} ${action.name()} ${action.usage()}`),
  );
}

/**
 * The command tree, writing to `io`. Commander keeps parsed values on the commands, so every
 * run builds a fresh one. `perform` runs a command's service call once parsing succeeded.
 */
function buildProgram(io: CliIo, perform: Perform): Command {
  const program = new Command('portcullis')
    .description('Manage the directory of a portcullis database from the machine it lives on.')
    // Settings below are copied to the subcommands created afterwards with .command().
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .showHelpAfterError();
  registerUserCommands(program, perform);
  registerTeamCommands(program, perform);
  registerServiceAccountCommands(program, perform);
  registerOrgCommands(program, perform);
  registerAuthCommands(program, perform);
  program.addHelpText('after', () =>
    [
      '',
      'Usage of each command:',
      ...fullUsages(program),
      '',
      'Acts as the local operator (Service Admin, Admin of --org) on the database of DATABASE_URL',
      '(default file:./data/portcullis.db; a relative path is relative to the project folder, from',
      'any working directory, as for `npm start`), which is migrated and seeded first; the file',
      'used is printed on stderr.',
      'Prints the created or changed object as JSON. Exit codes: 0 ok, 1 refused (CODE: message), 2 usage.',
      'Run `portcullis <area> <action> --help` for one command.',
    ].join('\n'),
  );
  return program;
}

/**
 * Runs the CLI with `argv` (without node and script) and returns the exit code.
 * Never throws: every failure becomes a message on `io.stderr` and a code (see the file comment).
 */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  let exitCode = EXIT_OK;
  const program = buildProgram(io, async (call) => {
    exitCode = await runWithServices(io, call);
  });
  try {
    await program.parseAsync(argv, { from: 'user' });
    return exitCode;
  } catch (error) {
    // exitOverride: help and version end with exit code 0, usage errors (already printed) otherwise.
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT_OK : EXIT_USAGE;
    io.stderr(`INTERNAL: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    return EXIT_USAGE;
  }
}

/** The real process's io. */
export const processIo: CliIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  env: process.env,
};

// `tsx src/cli/index.ts ...` runs it directly; bin/portcullis.mjs imports runCli.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await runCli(process.argv.slice(2), processIo);
}
