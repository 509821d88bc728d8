/**
 * Inputs of teams (createTeam, updateTeam, addTeamMember, teamSearch), shared by every door; the
 * search's paging (Grafana's `page` and `perpage`) is every list's (shared/paging.ts).
 */
import { z } from 'zod';
import { emailInput, idInput, nameInput, OBJECT_ERROR } from '../../kernel/inputs.js';
import { DEFAULT_PER_PAGE, pageNumberInput, pageSizeInput } from '../shared/paging.js';

/** "" (none) or an email address. */
const teamEmail = z.union([z.literal(''), emailInput('email')], { error: 'email must be an email address or ""' });

/** createTeam input (`POST /api/teams` body, Grafana's CreateTeamCommand). */
export const createTeamInput = z.object({ name: nameInput('name'), email: teamEmail.nullish() }, { error: 'input must be an object' });

/** updateTeam input (`PUT /api/teams/:teamId` body): omitted fields keep their value. */
export const updateTeamInput = z.object(
  { name: nameInput('name').nullish(), email: teamEmail.nullish() },
  { error: 'input must be an object' },
);

/** addTeamMember input (`POST /api/teams/:teamId/members` body, Grafana's AddTeamMemberCommand). */
export const addTeamMemberInput = z.object({ userId: idInput('userId') }, OBJECT_ERROR);

/** Grafana's team sort options (`sort=name-asc,memberCount-desc`); default name ascending. */
export const TEAM_SORT_FIELDS = ['name', 'email', 'memberCount'] as const;
export type TeamSortField = (typeof TEAM_SORT_FIELDS)[number];

const sortInput = z.string({ error: 'sort must be a string' }).transform((value, ctx) => {
  const out: { field: TeamSortField; direction: 'asc' | 'desc' }[] = [];
  for (const part of value.split(',').map((s) => s.trim())) {
    if (part === '') continue;
    const match = /^(name|email|memberCount)-(asc|desc)$/.exec(part);
    if (!match) {
      ctx.addIssue({
        code: 'custom',
        message: `unknown sort option "${part}" (one of ${TEAM_SORT_FIELDS.flatMap((f) => [`${f}-asc`, `${f}-desc`]).join(', ')})`,
      });
      return z.NEVER;
    }
    out.push({ field: match[1] as TeamSortField, direction: match[2] as 'asc' | 'desc' });
  }
  return out;
});

/**
 * teamSearch / `GET /api/teams/search` parameters: `query` (part of the name), `name` (the whole
 * name), `teamIds` (only these), paging and `sort`. `accessControl` asks for Grafana's per-team
 * `accessControl` map of the caller's actions.
 */
export const teamSearchInput = z.object(
  {
    query: z.string({ error: 'query must be a string' }).nullish(),
    name: z.string({ error: 'name must be a string' }).nullish(),
    teamIds: z.array(idInput('teamId'), { error: 'teamIds must be a list of ids' }).nullish(),
    page: pageNumberInput('page'),
    perPage: pageSizeInput('perPage', DEFAULT_PER_PAGE),
    sort: sortInput.nullish(),
    accessControl: z.boolean({ error: 'accessControl must be a boolean' }).nullish(),
  },
  OBJECT_ERROR,
);
