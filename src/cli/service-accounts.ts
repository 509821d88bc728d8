/** `portcullis sa create`: a service account of an organization with an org role. */
import type { Command } from 'commander';
import { localOperator } from '../kernel/principal.js';
import { ORG_ROLE_PLACEHOLDER, orgOption, type Perform, spellUsage } from './options.js';

/** Adds the `sa` group to `program`. `sa create` prints `{ id, login, name, orgId, role }`. */
export function registerServiceAccountCommands(program: Command, perform: Perform): void {
  const sa = program.command('sa').description('service accounts');
  spellUsage(
    sa
      .command('create')
      .description('Create a service account of organization --org (default 1) with an org role.')
      .requiredOption('--name <name>', 'service account name')
      .requiredOption(`--role ${ORG_ROLE_PLACEHOLDER}`, 'role in the organization')
      .addOption(orgOption()),
  ).action((options: { name: string; role: string; org: number }) =>
    perform(async (services) => {
      const account = await services.serviceAccounts.create(localOperator(options.org), { name: options.name, role: options.role });
      return { id: account.id, login: account.login, name: account.name, orgId: account.orgId, role: options.role };
    }),
  );
}
