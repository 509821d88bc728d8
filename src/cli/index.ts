/**
 * portcullis CLI: directory bootstrap for operators without GraphQL.
 *
 *   portcullis user create --login L --email E --password P [--name N] [--org-role R] [--service-admin] [--org ID]
 *   portcullis team create --name N [--email E] [--org ID]
 *   portcullis team add-member --team T --user U [--org ID]
 *   portcullis sa create --name N --role R [--org ID]
 *   portcullis org create --name N
 *
 * It opens the database of DATABASE_URL (migrating it), seeds it like the server does, and
 * calls the same core services as GraphQL and REST. The caller is the local operator
 * (core/operator.ts): whoever can run this on the machine already holds the database file, so
 * it acts as a Service Admin and Admin of the organization named by --org (default 1) — every
 * validation and uniqueness rule still applies.
 *
 * Output: the created object as one line of JSON on stdout. Exit codes: 0 done; 1 the service
 * refused (stderr `CODE: message`, e.g. `ALREADY_EXISTS: ...`) or failed; 2 usage or configuration error.
 */
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../config.js';
import { isDomainError } from '../kernel/errors.js';
import { localOperator } from '../kernel/operator.js';
import type { Services } from '../modules/services.js';
import type { Database } from '../platform/database.js';

/** Organization the operator acts in when --org is omitted ("Main Org.", db/seed.ts). */
const DEFAULT_ORG_ID = 1;

/** Where the CLI writes and what it reads; the real process by default, replaceable in tests. */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: Record<string, string | undefined>;
}

type OptionSpec = Record<string, { type: 'string' | 'boolean'; short?: string }>;

interface Command {
  /** "user create" */
  name: string;
  usage: string;
  summary: string;
  options: OptionSpec;
  required: string[];
  run(ctx: { services: Services; db: Database; values: Record<string, string | boolean | undefined> }): Promise<unknown>;
}

const EXIT_OK = 0;
const EXIT_REFUSED = 1;
const EXIT_USAGE = 2;

class UsageError extends Error {}

const help = { help: { type: 'boolean', short: 'h' } } as const;
const org = { org: { type: 'string' } } as const;

/** A positive integer option, or a usage error naming it. */
function idOption(values: Record<string, unknown>, name: string, fallback?: number): number {
  const raw = values[name];
  if (raw === undefined && fallback !== undefined) return fallback;
  if (typeof raw !== 'string' || !/^\d{1,10}$/.test(raw) || Number(raw) <= 0) throw new UsageError(`--${name} must be a positive id`);
  return Number(raw);
}

/** Options holding ids, checked before the database is opened. */
const ID_OPTIONS = ['org', 'team', 'user'];

const str = (values: Record<string, unknown>, name: string): string | undefined => values[name] as string | undefined;

const COMMANDS: Command[] = [
  {
    name: 'user create',
    usage:
      'portcullis user create --login L --email E --password P [--name N] [--org-role Viewer|Editor|Admin|None] [--service-admin] [--org ID]',
    summary: 'Create a user who joins organization --org (default 1) with --org-role (default Viewer).',
    options: {
      login: { type: 'string' },
      email: { type: 'string' },
      password: { type: 'string' },
      name: { type: 'string' },
      'org-role': { type: 'string' },
      'service-admin': { type: 'boolean' },
      ...org,
    },
    required: ['login', 'email', 'password'],
    async run({ services, values }) {
      const orgId = idOption(values, 'org', DEFAULT_ORG_ID);
      const user = await services.users.create(localOperator(orgId), {
        login: str(values, 'login'),
        email: str(values, 'email'),
        password: str(values, 'password'),
        name: str(values, 'name'),
        orgRole: str(values, 'org-role'),
        isServiceAdmin: values['service-admin'] === true,
      });
      return { id: user.id, login: user.login, email: user.email, name: user.name, orgId, isServiceAdmin: user.isServiceAdmin };
    },
  },
  {
    name: 'team create',
    usage: 'portcullis team create --name N [--email E] [--org ID]',
    summary: 'Create a team in organization --org (default 1).',
    options: { name: { type: 'string' }, email: { type: 'string' }, ...org },
    required: ['name'],
    async run({ services, values }) {
      const team = await services.teams.create(localOperator(idOption(values, 'org', DEFAULT_ORG_ID)), {
        name: str(values, 'name'),
        email: str(values, 'email'),
      });
      return { id: team.id, name: team.name, email: team.email, orgId: team.orgId };
    },
  },
  {
    name: 'team add-member',
    usage: 'portcullis team add-member --team T --user U [--org ID]',
    summary: "Add user U (a member of the team's organization) to team T. --org defaults to the team's organization.",
    options: { team: { type: 'string' }, user: { type: 'string' }, ...org },
    required: ['team', 'user'],
    async run({ services, db, values }) {
      const teamId = idOption(values, 'team');
      const userId = idOption(values, 'user');
      // Only chooses where the operator acts; the service still scopes the team to that organization.
      const home = await db.prisma.team.findUnique({ where: { id: teamId }, select: { orgId: true } });
      const orgId = idOption(values, 'org', home?.orgId ?? DEFAULT_ORG_ID);
      const team = await services.teams.addMember(localOperator(orgId), { teamId, userId });
      const members = await db.prisma.teamMember.findMany({ where: { teamId: team.id }, orderBy: { userId: 'asc' } });
      return { teamId: team.id, userId, memberIds: members.map((m) => m.userId) };
    },
  },
  {
    name: 'sa create',
    usage: 'portcullis sa create --name N --role Viewer|Editor|Admin|None [--org ID]',
    summary: 'Create a service account of organization --org (default 1) with an org role.',
    options: { name: { type: 'string' }, role: { type: 'string' }, ...org },
    required: ['name', 'role'],
    async run({ services, values }) {
      const orgId = idOption(values, 'org', DEFAULT_ORG_ID);
      const account = await services.serviceAccounts.create(localOperator(orgId), { name: str(values, 'name'), role: str(values, 'role') });
      return { id: account.id, login: account.login, name: account.name, orgId: account.orgId, role: str(values, 'role') };
    },
  },
  {
    name: 'org create',
    usage: 'portcullis org create --name N',
    summary: 'Create an organization (it has no members until you add some, e.g. user create --org ID).',
    options: { name: { type: 'string' } },
    required: ['name'],
    async run({ services, values }) {
      const created = await services.orgs.create(localOperator(DEFAULT_ORG_ID), { name: str(values, 'name') });
      return { id: created.id, name: created.name };
    },
  },
];

const GENERAL_HELP = [
  'portcullis: manage the directory of a portcullis database from the machine it lives on.',
  '',
  'Usage:',
  ...COMMANDS.map((c) => `  ${c.usage}`),
  '',
  'Acts as the local operator (Service Admin, Admin of --org) on the database of DATABASE_URL',
  '(default file:./data/portcullis.db), which is migrated and seeded first.',
  'Prints the created object as JSON. Exit codes: 0 ok, 1 refused (CODE: message), 2 usage.',
  'Run `portcullis <area> <action> --help` for one command.',
].join('\n');

function commandHelp(c: Command): string {
  return [`Usage: ${c.usage}`, '', c.summary, '', `Required: ${c.required.map((r) => `--${r}`).join(', ')}`].join('\n');
}

/**
 * Runs the CLI with `argv` (without node and script) and returns the exit code.
 * Never throws: every failure becomes a message on stderr and a code.
 */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const words = argv.slice(0, 2).filter((w) => !w.startsWith('-'));
  const command = COMMANDS.find((c) => c.name === words.join(' '));
  const wantsHelp = argv.includes('--help') || argv.includes('-h') || argv[0] === 'help';
  if (!command) {
    if (wantsHelp) {
      io.stdout(`${GENERAL_HELP}\n`);
      return EXIT_OK;
    }
    io.stderr(`${argv.length === 0 ? 'No command given.' : `Unknown command "${words.join(' ')}".`}\n\n${GENERAL_HELP}\n`);
    return EXIT_USAGE;
  }

  let values: Record<string, string | boolean | undefined>;
  try {
    const parsed = parseArgs({ args: argv.slice(2), options: { ...command.options, ...help }, strict: true, allowPositionals: false });
    values = parsed.values as Record<string, string | boolean | undefined>;
    if (values.help) {
      io.stdout(`${commandHelp(command)}\n`);
      return EXIT_OK;
    }
    const missing = command.required.filter((r) => values[r] === undefined);
    if (missing.length > 0) throw new UsageError(`missing ${missing.map((m) => `--${m}`).join(', ')}`);
    for (const id of ID_OPTIONS) if (values[id] !== undefined) idOption(values, id);
  } catch (error) {
    io.stderr(`${(error as Error).message}\n\n${commandHelp(command)}\n`);
    return EXIT_USAGE;
  }

  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig(io.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      io.stderr(`${error.message}\n`);
      return EXIT_USAGE;
    }
    throw error;
  }

  let db: Database | undefined;
  try {
    // Loaded only now, so --help and usage errors answer without starting Prisma.
    const [{ openDatabase }, { seed }, { createServices }, { systemClock }] = await Promise.all([
      import('../platform/database.js'),
      import('../kernel/seed.js'),
      import('../modules/services.js'),
      import('../platform/clock.js'),
    ]);
    db = await openDatabase({ databaseUrl: config.databaseUrl });
    await seed(db.prisma, { adminLogin: config.adminLogin, adminPassword: config.adminPassword });
    const services = createServices({ db: db.prisma, config, clock: systemClock });
    const result = await command.run({ services, db, values });
    io.stdout(`${JSON.stringify(result)}\n`);
    return EXIT_OK;
  } catch (error) {
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

/** The real process's io. */
export const processIo: CliIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  env: process.env,
};

// `tsx src/cli.ts ...` runs it directly; bin/portcullis.mjs imports runCli.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await runCli(process.argv.slice(2), processIo);
}
