/** `portcullis org create`: an organization without members. */
import type { Command } from 'commander';
import { localOperator } from '../kernel/principal.js';
import { DEFAULT_ORG_ID, type Perform, spellUsage } from './options.js';

/** Adds the `org` group to `program`. `org create` prints `{ id, name }`. */
export function registerOrgCommands(program: Command, perform: Perform): void {
  const org = program.command('org').description('organizations');
  spellUsage(
    org
      .command('create')
      .description('Create an organization (it has no members until you add some, e.g. user create --org ID).')
      .requiredOption('--name <name>', 'organization name'),
  ).action((options: { name: string }) =>
    perform(async (services) => {
      // The local operator is a Service Admin, so the organization it acts in does not matter here.
      const created = await services.orgs.create(localOperator(DEFAULT_ORG_ID), { name: options.name });
      return { id: created.id, name: created.name };
    }),
  );
}
