/**
 * The teams of many users at once (User.teams over a list, `GET /api/users/:id/teams` for one):
 * each user's teams in the organization acted in that the caller may read (teams:read on
 * teams:id:<id>), by name then id, once the caller may read the user (rules.ts readsGlobally,
 * UserService.get's rule). A fixed number of statements for any number of users: the users
 * behind the wall, the memberships (ordered by team name in SQL, as every team listing) and the
 * teams with what `query` loads, each in slices of MAX_IDS_PER_QUERY (SQLite's bound-value limit).
 */
import type { Prisma, Team } from '../../generated/prisma/client.js';
import { Action } from '../../kernel/catalogue.js';
import { DomainError } from '../../kernel/errors.js';
import type { FeatureDeps } from '../../kernel/feature-deps.js';
import { idFilter, permittedIds } from '../../kernel/guards.js';
import { parseId } from '../../kernel/inputs.js';
import type { SignedInPrincipal } from '../../kernel/principal.js';
import { loadInChunks } from '../../platform/database.js';
import { readableWhere, readsGlobally, userNotFound } from './rules.js';

/** What a Pothos `query` (or any caller) may ask Prisma to load with each team (User.teams, `GET /api/users/:id/teams`). */
export type TeamQuery = { include?: Prisma.TeamInclude; select?: Prisma.TeamSelect };

/** The teams of each of `userIds` the caller may read, by user id (every id present, maybe with none). */
async function readableTeamsOf(
  deps: FeatureDeps,
  caller: SignedInPrincipal,
  userIds: readonly number[],
  query: TeamQuery,
): Promise<Map<number, Team[]>> {
  const teamIds = permittedIds(await deps.access.permissionsOf(caller), Action.TeamsRead, 'teams:id:');
  const memberships = await loadInChunks(userIds, (chunk) =>
    deps.db.teamMember.findMany({
      where: { userId: { in: chunk }, team: { orgId: caller.orgId, ...idFilter(teamIds) } },
      select: { userId: true, teamId: true },
      orderBy: [{ team: { name: 'asc' } }, { teamId: 'asc' }],
    }),
  );
  // The rows are matched to their memberships by id, also when the caller's query selects fields.
  const withId: TeamQuery = query.select ? { select: { ...query.select, id: true } } : query;
  const teams = await loadInChunks([...new Set(memberships.map((m) => m.teamId))], (chunk) =>
    deps.db.team.findMany({ ...withId, where: { id: { in: chunk } } }),
  );
  const byId = new Map(teams.map((t) => [t.id, t]));
  const out = new Map<number, Team[]>(userIds.map((id) => [id, []]));
  for (const { userId, teamId } of memberships) {
    const team = byId.get(teamId); // absent: deleted between the two reads, left out
    if (team) out.get(userId)?.push(team);
  }
  return out;
}

/**
 * UserService.teamsOfMany: one answer per raw id, in order: the user's teams (readableTeamsOf),
 * or the DomainError reading the user alone throws (400, 403, USER_NOT_FOUND).
 */
export async function teamsOfUsers(
  deps: FeatureDeps,
  caller: SignedInPrincipal,
  rawIds: readonly unknown[],
  query: TeamQuery,
  global: boolean,
): Promise<(Team[] | DomainError)[]> {
  const answers = await Promise.all(
    rawIds.map(async (raw) => {
      try {
        const id = parseId('id', raw);
        return { id, globally: await readsGlobally(deps.access, caller, id, global) };
      } catch (error) {
        if (error instanceof DomainError) return error;
        throw error;
      }
    }),
  );
  const readable = answers.filter((a): a is { id: number; globally: boolean } => !(a instanceof DomainError));
  const found = new Set<number>();
  for (const globally of [true, false]) {
    const ids = readable.filter((a) => a.globally === globally).map((a) => a.id);
    const rows = await loadInChunks(ids, (chunk) =>
      deps.db.user.findMany({ where: readableWhere(caller, chunk, globally), select: { id: true } }),
    );
    for (const row of rows) found.add(row.id);
  }
  const teams = await readableTeamsOf(deps, caller, [...found], query);
  return answers.map((a) => (a instanceof DomainError ? a : (teams.get(a.id) ?? userNotFound(a.id))));
}
