/**
 * Inputs of the roles feature, one zod schema each, shared by both doors: REST passes the parsed
 * JSON body, GraphQL its typed arguments. Rules: service-interface.md "Create role" / "Update
 * role"; limits from upstream-behaviour.md "Roles".
 */
import { z } from 'zod';
import { RESERVED_UID_PREFIXES } from '../../kernel/builtin-roles.js';
import { OBJECT_ERROR, permissionList } from '../../kernel/inputs.js';
import { isReservedRoleName, RESERVED_NAME_MESSAGE } from '../../kernel/lookalikes.js';
import { MAX_CREATE_VERSION, MAX_ROLE_VERSION } from '../../kernel/role-version.js';

/** Limits from upstream-behaviour.md "Roles". */
export const MAX_ROLE_NAME_LENGTH = 190;
export const MAX_ROLE_UID_LENGTH = 40;
const UID_PATTERN = /^[a-zA-Z0-9_-]+$/;
/** Limit on free-text fields; the spec shows none, this keeps rows bounded. */
const MAX_TEXT_LENGTH = 2000;

const text = (field: string) =>
  z.string({ error: `${field} must be a string` }).max(MAX_TEXT_LENGTH, `${field} is longer than ${MAX_TEXT_LENGTH} characters`);
const roleName = z
  .string({ error: 'name is required and must be a string' })
  .trim()
  .min(1, 'name is required')
  .max(MAX_ROLE_NAME_LENGTH, `name is longer than ${MAX_ROLE_NAME_LENGTH} characters`)
  // Stored composed (NFC): "é" as one code point or as "e" + accent is one name, not two.
  .transform((name) => name.normalize('NFC'));
/** A version as sent: a whole number from 0 to the ceiling (kernel/role-version.ts). */
const version = z
  .number({ error: 'version must be a number' })
  .int('version must be a whole number')
  .min(0, 'version must not be negative')
  .max(
    MAX_ROLE_VERSION,
    `version is larger than ${MAX_ROLE_VERSION}, the highest version; a role already at ${MAX_ROLE_VERSION} is updated with ${MAX_ROLE_VERSION} again`,
  );

/** A create's version leaves room for the first update's higher version (kernel/role-version.ts). */
const createVersion = version.max(
  MAX_CREATE_VERSION,
  `version must be at most ${MAX_CREATE_VERSION} when a role is created, so that an update (which needs a higher version) stays possible`,
);

/** The longest maxAssignmentSeconds: a GraphQL Int (about 68 years), so both doors accept the same range. */
export const MAX_ASSIGNMENT_SECONDS = 2_147_483_647;

/** Fields create and update share. */
const describedRole = {
  /** The longest assignment of the role (modules/assignments/window.ts); null or absent on create: no limit. */
  maxAssignmentSeconds: z
    .number({ error: 'maxAssignmentSeconds must be a number' })
    .int('maxAssignmentSeconds must be a whole number of seconds')
    .min(1, 'maxAssignmentSeconds must be at least 1')
    .max(MAX_ASSIGNMENT_SECONDS, `maxAssignmentSeconds must be at most ${MAX_ASSIGNMENT_SECONDS}`)
    .nullish(),
  name: roleName,
  displayName: text('displayName').nullish(),
  description: text('description').nullish(),
  group: text('group').nullish(),
  hidden: z.boolean({ error: 'hidden must be a boolean' }).nullish(),
  permissions: permissionList.nullish(),
};

/** Body of create role (service-interface.md "Create role"). */
export const createRoleInput = z.object(
  {
    uid: z
      .string({ error: 'uid must be a string' })
      .max(MAX_ROLE_UID_LENGTH, `uid is longer than ${MAX_ROLE_UID_LENGTH} characters`)
      .regex(UID_PATTERN, 'uid may contain only letters, digits, "_" and "-"')
      .refine(
        (uid) => !RESERVED_UID_PREFIXES.some((prefix) => uid.toLowerCase().startsWith(prefix)),
        `custom role uids cannot begin with ${RESERVED_UID_PREFIXES.map((p) => `"${p}"`).join(', ')} (built-in, product, provisioned and managed roles)`,
      )
      .nullish(),
    global: z.boolean({ error: 'global must be a boolean' }).nullish(),
    version: createVersion.nullish(),
    ...describedRole,
    name: roleName.refine((name) => !isReservedRoleName(name), RESERVED_NAME_MESSAGE),
  },
  OBJECT_ERROR,
);

/** Body of update role (service-interface.md "Update role"). Omitted optional fields keep their value. */
export const updateRoleInput = z.object(
  {
    version: z.number({ error: 'version is required and must be a number' }).pipe(version),
    ...describedRole,
  },
  OBJECT_ERROR,
);

/** A role uid sent to name an existing role (assignments, deletes): 1..40 characters. */
export const roleUidInput = (field: string) =>
  z
    .string({ error: `${field} is required and must be a string` })
    .min(1, `${field} must not be empty`)
    .max(MAX_ROLE_UID_LENGTH, `${field} is longer than ${MAX_ROLE_UID_LENGTH} characters`);
