/**
 * Inputs of the what-if simulation (`POST /api/access-control/simulate`, GraphQL
 * `simulateAccessChange`): a list of proposed changes, each named by the audit action its real
 * write records, and a page of the affected subjects. Both doors parse the same schema.
 */
import { z } from 'zod';
import { idInput, OBJECT_ERROR, orgRoleInput, permissionList } from '../../kernel/inputs.js';
import { roleUidInput } from '../roles/inputs.js';

/** Most changes one simulation may propose; more is 400 TOO_MANY_CHANGES. */
export const MAX_SIMULATED_CHANGES = 50;
/** Default and largest page of affected subjects. */
export const DEFAULT_SIMULATION_PAGE = 100;
export const MAX_SIMULATION_PAGE = 1000;

/**
 * The kinds of proposed change, named by the audit action of the write they stand for:
 * `role.permissions` (PUT /api/access-control/roles/:uid with permissions: they replace the
 * role's), `user_role.add` / `user_role.remove` (a user's or service account's assignment, in the
 * caller's organization or with `global` in every one), `team_role.add` / `team_role.remove`,
 * `team_member.add` / `team_member.remove`, `org_user.role` (a person's org role in the caller's
 * organization).
 */
export const CHANGE_KINDS = [
  'role.permissions',
  'user_role.add',
  'user_role.remove',
  'team_role.add',
  'team_role.remove',
  'team_member.add',
  'team_member.remove',
  'org_user.role',
] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];

const roleUid = roleUidInput('roleUid');
const flag = (field: string) => z.boolean({ error: `${field} must be a boolean` }).nullish();

/** One proposed change, as parsed: the fields its kind needs. */
export const changeInput = z.discriminatedUnion(
  'kind',
  [
    z.object({ kind: z.literal('role.permissions'), roleUid, permissions: permissionList }),
    z.object({ kind: z.enum(['user_role.add', 'user_role.remove']), userId: idInput('userId'), roleUid, global: flag('global') }),
    z.object({ kind: z.enum(['team_role.add', 'team_role.remove']), teamId: idInput('teamId'), roleUid }),
    z.object({ kind: z.enum(['team_member.add', 'team_member.remove']), teamId: idInput('teamId'), userId: idInput('userId') }),
    z.object({ kind: z.literal('org_user.role'), userId: idInput('userId'), role: orgRoleInput }),
  ],
  { error: `kind must be one of ${CHANGE_KINDS.join(', ')}` },
);
export type ProposedChange = z.output<typeof changeInput>;

/**
 * Body of a simulation: `{changes, first?, after?}`. `changes` in the order they would be made
 * (at most MAX_SIMULATED_CHANGES, else 400 TOO_MANY_CHANGES, checked by the service so the code
 * is its own); `first` subjects per page (default 100, at most 1000); `after` the cursor of the
 * previous page.
 */
export const simulateInput = z.object(
  {
    changes: z.array(changeInput, { error: 'changes is required and must be an array of changes' }).min(1, 'changes must not be empty'),
    first: z
      .number({ error: 'first must be a number' })
      .int('first must be a whole number')
      .min(1, 'first must be at least 1')
      .max(MAX_SIMULATION_PAGE, `first must be at most ${MAX_SIMULATION_PAGE}`)
      .nullish(),
    after: z.string({ error: 'after must be a string' }).max(40, 'after is not a cursor of this list').nullish(),
  },
  OBJECT_ERROR,
);
