/** Options and helpers shared by the CLI's command groups. */
import { type Command, InvalidArgumentError, Option } from 'commander';
import { idFromText } from '../kernel/inputs.js';
import { ORG_ROLES } from '../kernel/principal.js';
import type { ServiceCall } from './session.js';

/** Organization the operator acts in when --org is omitted ("Main Org.", kernel/seed.ts). */
export const DEFAULT_ORG_ID = 1;

/** Placeholder of an org role option; the services validate the value (VALIDATION_FAILED, exit 1). */
export const ORG_ROLE_PLACEHOLDER = `<${ORG_ROLES.join('|')}>`;

/** Runs a command's service call and records its exit code (src/cli/index.ts). */
export type Perform = (call: ServiceCall) => Promise<void>;

/** Parses a positive id (kernel/inputs.ts idFromText); anything else is a usage error naming the option. */
function parseId(raw: string): number {
  const id = idFromText(raw);
  if (id === null) throw new InvalidArgumentError('It must be a positive id.');
  return id;
}

/** A `--<name> <id>` option whose value is checked and converted to a number while parsing. */
export function idOption(name: string, description: string): Option {
  return new Option(`--${name} <id>`, description).argParser(parseId);
}

/** `--org <id>`, defaulting to DEFAULT_ORG_ID. */
export function orgOption(): Option {
  return idOption('org', 'organization the operator acts in').default(DEFAULT_ORG_ID);
}

/**
 * Sets the usage line of a command from its options, required ones bare and optional ones in
 * brackets (`--name <name> [--email <email>]`), so help and the top-level list spell them out.
 * Call it after the options are declared.
 */
export function spellUsage(command: Command): Command {
  return command.usage(command.options.map((o) => (o.mandatory ? o.flags : `[${o.flags}]`)).join(' '));
}
