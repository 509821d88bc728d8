/**
 * Inputs of role assignments (service-interface.md "Add role to a user", "Set roles of ...",
 * "Team role operations"). Duplicate uids in a set collapse.
 */
import { z } from 'zod';
import { OBJECT_ERROR } from '../../kernel/inputs.js';
import { roleUidInput } from '../roles/inputs.js';

/** Largest set a client may send; the spec shows no limit, this keeps one request bounded. */
export const MAX_ROLE_UIDS = 1000;

const uidList = z
  .array(roleUidInput('roleUids[]'), { error: 'roleUids is required and must be an array of strings' })
  .max(MAX_ROLE_UIDS, `roleUids: at most ${MAX_ROLE_UIDS} roles`)
  .transform((uids) => [...new Set(uids)]);
const flag = (field: string) => z.boolean({ error: `${field} must be a boolean` }).nullish();

/** Body of add user role: `{roleUid, global?}`. */
export const addUserRoleInput = z.object({ roleUid: roleUidInput('roleUid'), global: flag('global') }, OBJECT_ERROR);
/** Body of set user roles: `{roleUids, global?, includeHidden?}`. */
export const setUserRolesInput = z.object(
  { roleUids: uidList, global: flag('global'), includeHidden: flag('includeHidden') },
  OBJECT_ERROR,
);
/** Body of add team role: `{roleUid}` (teams have no `global`). */
export const addTeamRoleInput = z.object({ roleUid: roleUidInput('roleUid') }, OBJECT_ERROR);
/** Body of set team roles: `{roleUids, includeHidden?}`. */
export const setTeamRolesInput = z.object({ roleUids: uidList, includeHidden: flag('includeHidden') }, OBJECT_ERROR);
/** The role uid in a remove path. */
export const roleUidParam = roleUidInput('roleUID');
