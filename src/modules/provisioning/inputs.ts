/**
 * The RBAC provisioning file format, Grafana's `apiVersion: 2` (Grafana Enterprise
 * `provisioning/access-control/*.yaml`; upstream-behaviour.md "Escalation and provisioning"):
 *
 *   apiVersion: 2
 *   roles:   [{ name, uid, displayName, description, group, hidden, version, orgId, global,
 *               permissions: [{action, scope, state}], from: [{uid | name, global, orgId}],
 *               state: absent, force }]
 *   teams:   [{ name, orgId, roles: [{uid | name, global, orgId, state: absent}] }]
 *
 * Unknown keys are refused, so a misspelt key is reported rather than silently ignored.
 */
import { z } from 'zod';
import { actionProblem, scopeProblem } from '../../kernel/catalogue.js';
import { MAX_ROLE_VERSION } from '../../kernel/role-version.js';

const orgId = z.number({ error: 'orgId must be a number' }).int('orgId must be a whole number').positive('orgId must be positive');
const state = z.enum(['present', 'absent'], { error: 'state must be "present" or "absent"' });
const str = (field: string) => z.string({ error: `${field} must be a string` });
/** An object's own message for a wrong type only; unknown keys keep zod's "Unrecognized key". */
const mapping = (message: string) => ({ error: (issue: { code: string }) => (issue.code === 'invalid_type' ? message : undefined) });

/** A permission of a provisioned role; `state: absent` removes it (also from what `from` copied). */
const filePermission = z
  .object({ action: str('action'), scope: str('scope').nullish(), state: state.nullish() }, mapping('a permission must be a mapping'))
  .strict()
  .superRefine((p, ctx) => {
    const problem = actionProblem(p.action);
    if (problem) ctx.addIssue({ code: 'custom', path: ['action'], message: problem });
    const scopeIssue = scopeProblem(p.scope ?? '');
    if (scopeIssue) ctx.addIssue({ code: 'custom', path: ['scope'], message: scopeIssue });
  })
  .transform((p) => ({ action: p.action, scope: p.scope ?? '', absent: p.state === 'absent' }));

/** A reference to a role: by `uid`, or by `name` in `orgId` (default 1) or globally. */
const roleRefFields = {
  uid: str('uid').nullish(),
  name: str('name').nullish(),
  global: z.boolean({ error: 'global must be a boolean' }).nullish(),
  orgId: orgId.nullish(),
};
const hasUidOrName = (r: { uid?: string | null; name?: string | null }) => Boolean(r.uid || r.name);
const REF_MESSAGE = 'a role reference needs a uid or a name';

const roleRefInput = z.object(roleRefFields, mapping('a role reference must be a mapping')).strict().refine(hasUidOrName, REF_MESSAGE);
export type RoleRef = z.output<typeof roleRefInput>;

const fileRole = z
  .object(
    {
      ...roleRefFields,
      displayName: str('displayName').nullish(),
      description: str('description').nullish(),
      group: str('group').nullish(),
      hidden: z.boolean({ error: 'hidden must be a boolean' }).nullish(),
      version: z
        .number({ error: 'version must be a number' })
        .int('version must be a whole number')
        .min(0)
        .max(MAX_ROLE_VERSION, `version is larger than ${MAX_ROLE_VERSION}, the highest version`)
        .nullish(),
      permissions: z.array(filePermission, { error: 'permissions must be a list' }).nullish(),
      from: z.array(roleRefInput, { error: 'from must be a list of role references' }).nullish(),
      state: state.nullish(),
      force: z.boolean({ error: 'force must be a boolean' }).nullish(),
    },
    mapping('a role must be a mapping'),
  )
  .strict()
  .refine(hasUidOrName, { message: 'a role needs a name or a uid', path: ['name'] });
export type FileRole = z.output<typeof fileRole>;

const fileTeam = z
  .object(
    {
      name: str('name').min(1, 'name must not be empty'),
      orgId: orgId.nullish(),
      roles: z
        .array(
          z
            .object({ ...roleRefFields, state: state.nullish() }, mapping('a role reference must be a mapping'))
            .strict()
            .refine(hasUidOrName, REF_MESSAGE),
          { error: 'roles must be a list' },
        )
        .nullish(),
    },
    mapping('a team must be a mapping'),
  )
  .strict();
export type FileTeam = z.output<typeof fileTeam>;

/** One access-control provisioning file. */
export const accessControlFileInput = z
  .object(
    {
      apiVersion: z.union([z.literal(2), z.literal('2')], { error: 'apiVersion must be 2' }),
      roles: z.array(fileRole, { error: 'roles must be a list' }).nullish(),
      teams: z.array(fileTeam, { error: 'teams must be a list' }).nullish(),
    },
    mapping('the file must be a mapping with apiVersion: 2'),
  )
  .strict();
