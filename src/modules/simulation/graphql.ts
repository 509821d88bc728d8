/**
 * GraphQL door of the what-if simulation: the query `simulateAccessChange(changes, first,
 * after)`, calling SimulationService.simulate as `POST /api/access-control/simulate` does. A
 * query, not a mutation: it writes nothing.
 */
import { needs } from '../../kernel/requirements.js';
import { builder } from '../shared/builder.js';
import { OrgRoleEnum } from '../shared/org-role.js';
import { PermissionInput } from '../shared/permission.js';
import { type ChangeKind, DEFAULT_SIMULATION_PAGE, MAX_SIMULATED_CHANGES, MAX_SIMULATION_PAGE } from './inputs.js';
import { type ChangeVerdict, type Simulation, type SubjectDifference, simulationRequirements } from './service.js';

const KIND_VALUES = {
  ROLE_PERMISSIONS: { value: 'role.permissions', description: "Replace a role's permissions (roleUid, permissions)." },
  USER_ROLE_ADD: { value: 'user_role.add', description: 'Assign a role to a user or service account (userId, roleUid, global).' },
  USER_ROLE_REMOVE: { value: 'user_role.remove', description: 'Remove a role from a user or service account (userId, roleUid, global).' },
  TEAM_ROLE_ADD: { value: 'team_role.add', description: 'Assign a role to a team (teamId, roleUid).' },
  TEAM_ROLE_REMOVE: { value: 'team_role.remove', description: 'Remove a role from a team (teamId, roleUid).' },
  TEAM_MEMBER_ADD: { value: 'team_member.add', description: 'Add a user to a team (teamId, userId).' },
  TEAM_MEMBER_REMOVE: { value: 'team_member.remove', description: 'Remove a user from a team (teamId, userId).' },
  ORG_USER_ROLE: { value: 'org_user.role', description: "Change a person's org role in the current organization (userId, role)." },
} as const satisfies Record<string, { value: ChangeKind; description: string }>;

const AccessChangeKind = builder.enumType('AccessChangeKind', {
  description: 'A kind of proposed change, named by the audit action its write records (REST: the value, e.g. "role.permissions").',
  values: KIND_VALUES,
});

const AccessChangeInput = builder.inputType('AccessChangeInput', {
  description: 'One proposed change: `kind` and the fields it names (the others are ignored).',
  fields: (t) => ({
    kind: t.field({ type: AccessChangeKind, required: true }),
    roleUid: t.string({ description: 'The role (role.permissions, user_role.*, team_role.*).' }),
    permissions: t.field({ type: [PermissionInput], description: "The role's new permissions, replacing its own (role.permissions)." }),
    userId: t.int({ description: 'A user or service account of the current organization (user_role.*, team_member.*, org_user.role).' }),
    teamId: t.int({ description: 'A team of the current organization (team_role.*, team_member.*).' }),
    global: t.boolean({ description: 'user_role.*: the global assignment instead of the organization one.' }),
    role: t.field({ type: OrgRoleEnum, description: 'org_user.role: the new org role.' }),
  }),
});

const AccessChangeRefusal = builder.objectRef<NonNullable<ChangeVerdict['refusal']>>('AccessChangeRefusal').implement({
  description: 'Why the caller could not make a change: what its write would answer.',
  fields: (t) => ({
    code: t.exposeString('code', { description: 'ACCESS_DENIED, ALREADY_TEAM_MEMBER, USER_NOT_FOUND, LAST_ORG_ADMIN, ...' }),
    message: t.exposeString('message'),
    status: t.exposeInt('status', { description: 'The HTTP status the write would answer.' }),
  }),
});

const AccessChangeVerdict = builder.objectRef<ChangeVerdict>('AccessChangeVerdict').implement({
  description: 'Whether the caller could make one proposed change (the delegation rule and what its write requires).',
  fields: (t) => ({
    change: t.exposeInt('change', { description: '0-based index of the change in `changes`.' }),
    kind: t.field({ type: AccessChangeKind, resolve: (v) => v.kind }),
    allowed: t.exposeBoolean('allowed'),
    refusal: t.field({ type: AccessChangeRefusal, nullable: true, resolve: (v) => v.refusal }),
  }),
});

const MovedPermission = builder.objectRef<SubjectDifference['gained'][number]>('MovedPermission').implement({
  description: 'A permission gained or lost, and the change causing it.',
  fields: (t) => ({
    action: t.exposeString('action'),
    scope: t.exposeString('scope'),
    change: t.exposeInt('change', { description: '0-based index of the change after which it is gained (or lost) for good.' }),
  }),
});

const SimulatedSubject = builder.objectRef<SubjectDifference>('SimulatedSubject').implement({
  description: 'A user, service account or API key whose permissions the changes would move.',
  fields: (t) => ({
    kind: t.exposeString('kind', { description: 'user, serviceAccount or apiKey.' }),
    id: t.exposeInt('id'),
    login: t.exposeString('login', { description: "The login, or an API key's name." }),
    gained: t.field({ type: [MovedPermission], resolve: (s) => s.gained }),
    lost: t.field({ type: [MovedPermission], resolve: (s) => s.lost }),
  }),
});

const SimulationSummaryRow = builder.objectRef<Simulation['summary'][number]>('SimulationSummaryRow').implement({
  description: 'How many subjects gain and lose one permission.',
  fields: (t) => ({
    action: t.exposeString('action'),
    scope: t.exposeString('scope'),
    gained: t.exposeInt('gained'),
    lost: t.exposeInt('lost'),
  }),
});

const AccessSimulation = builder.objectRef<Simulation>('AccessSimulation').implement({
  description: 'What proposed changes would do, computed without writing anything.',
  fields: (t) => ({
    revision: t.exposeInt('revision', {
      description: 'The newest revision of the change feed when it was read: it reflects every change up to it.',
    }),
    allowed: t.exposeBoolean('allowed', { description: 'True when the caller could make every change.' }),
    changes: t.field({ type: [AccessChangeVerdict], resolve: (s) => s.changes }),
    examined: t.exposeInt('examined', { description: 'Subjects examined: only those the changes can reach.' }),
    affected: t.exposeInt('affected', { description: 'Subjects whose permissions would move, over all pages.' }),
    summary: t.field({
      type: [SimulationSummaryRow],
      description: 'Subjects per permission gained and lost, over all pages.',
      resolve: (s) => s.summary,
    }),
    subjects: t.field({
      type: [SimulatedSubject],
      description: 'This page: users and service accounts by id, then API keys by id.',
      resolve: (s) => s.subjects,
    }),
    endCursor: t.exposeString('endCursor', { nullable: true, description: 'Pass as `after` for the next page; null on the last.' }),
    hasNextPage: t.exposeBoolean('hasNextPage'),
  }),
});

builder.queryField('simulateAccessChange', (t) =>
  t.field({
    type: AccessSimulation,
    description: `What-if (REST: POST /api/access-control/simulate): for proposed changes, in order, every affected subject of the current organization with the permissions it would gain and lose and the change causing each, and whether the caller could make each change. Writes nothing. At most ${MAX_SIMULATED_CHANGES} changes (400 TOO_MANY_CHANGES). ${needs(simulationRequirements.simulate)}`,
    args: {
      changes: t.arg({ type: [AccessChangeInput], required: true }),
      first: t.arg.int({ description: `Subjects per page (default ${DEFAULT_SIMULATION_PAGE}, at most ${MAX_SIMULATION_PAGE}).` }),
      after: t.arg.string({ description: 'The endCursor of the previous page.' }),
    },
    resolve: (_root, args, ctx) => ctx.services.simulation.simulate(ctx.principal, args),
  }),
);
