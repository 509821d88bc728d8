/** `portcullis team create` and `portcullis team add-member`. */
import type { Command } from 'commander';
import { localOperator } from '../kernel/principal.js';
import type { Services } from '../modules/services.js';
import type { TeamQuery } from '../modules/teams/service.js';
import { DEFAULT_ORG_ID, idOption, orgOption, type Perform, spellUsage } from './options.js';

type Team = Awaited<ReturnType<Services['teams']['addMember']>>;

/** Asks the team service for the member ids, in order, with the team it returns. */
const WITH_MEMBER_IDS = { include: { members: { select: { userId: true }, orderBy: { userId: 'asc' } } } } satisfies TeamQuery;

/**
 * The organization holding team `teamId`, or undefined when none does. Team lookups are scoped
 * to the caller's organization, so as a Service Admin it asks each organization in turn.
 */
async function organizationOfTeam(services: Services, teamId: number): Promise<number | undefined> {
  const orgs = await services.orgs.list(localOperator(DEFAULT_ORG_ID), { select: { id: true } });
  for (const { id: orgId } of orgs) {
    const teams = await services.teams.list(localOperator(orgId), { select: { id: true } });
    if (teams.some((team) => team.id === teamId)) return orgId;
  }
  return undefined;
}

/**
 * Adds the `team` group to `program`. `team create` prints `{ id, name, email, orgId }`;
 * `team add-member` prints `{ teamId, userId, memberIds }` (every member, ascending).
 */
export function registerTeamCommands(program: Command, perform: Perform): void {
  const team = program.command('team').description('teams and their members');

  spellUsage(
    team
      .command('create')
      .description('Create a team in organization --org (default 1).')
      .requiredOption('--name <name>', 'team name, unique in the organization')
      .option('--email <email>', 'team email address')
      .addOption(orgOption()),
  ).action((options: { name: string; email?: string; org: number }) =>
    perform(async (services) => {
      const created = await services.teams.create(localOperator(options.org), { name: options.name, email: options.email });
      return { id: created.id, name: created.name, email: created.email, orgId: created.orgId };
    }),
  );

  spellUsage(
    team
      .command('add-member')
      .description("Add a user (a member of the team's organization) to a team. --org defaults to the team's organization.")
      .addOption(idOption('team', 'team id').makeOptionMandatory())
      .addOption(idOption('user', 'user id').makeOptionMandatory())
      .addOption(idOption('org', "organization the operator acts in (default: the team's)")),
  ).action((options: { team: number; user: number; org?: number }) =>
    perform(async (services) => {
      // Only chooses where the operator acts; the service still scopes the team to that organization.
      const orgId = options.org ?? (await organizationOfTeam(services, options.team)) ?? DEFAULT_ORG_ID;
      // The include above makes the service load the members with the team.
      const updated = (await services.teams.addMember(
        localOperator(orgId),
        options.team,
        { userId: options.user },
        WITH_MEMBER_IDS,
      )) as Team & {
        members: { userId: number }[];
      };
      return { teamId: updated.id, userId: options.user, memberIds: updated.members.map((m) => m.userId) };
    }),
  );
}
