/**
 * Inputs of role assignments (service-interface.md "Add role to a user", "Set roles of ...",
 * "Team role operations"). Duplicate uids in a set collapse. Add and set also take an optional
 * window (`notBefore`, `expiresAt`: RFC 3339 with an offset on REST, a DateTime on GraphQL;
 * window.ts); a body without them is Grafana's and assigns for good.
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
/** A moment: a Date (GraphQL's DateTime) or an RFC 3339 timestamp with its offset (REST). */
const instant = (field: string) =>
  z
    .union([z.date(), z.iso.datetime({ offset: true }).transform((text) => new Date(text))], {
      error: `${field} must be an RFC 3339 timestamp with an offset, e.g. 2026-11-22T10:00:00Z`,
    })
    .nullish();
const window = { notBefore: instant('notBefore'), expiresAt: instant('expiresAt') };

/** Body of add user role: `{roleUid, global?, notBefore?, expiresAt?}`. */
export const addUserRoleInput = z.object({ roleUid: roleUidInput('roleUid'), global: flag('global'), ...window }, OBJECT_ERROR);
/** Body of set user roles: `{roleUids, global?, includeHidden?, notBefore?, expiresAt?}`: the window applies to every role named. */
export const setUserRolesInput = z.object(
  { roleUids: uidList, global: flag('global'), includeHidden: flag('includeHidden'), ...window },
  OBJECT_ERROR,
);
/** Body of add team role: `{roleUid, notBefore?, expiresAt?}` (teams have no `global`). */
export const addTeamRoleInput = z.object({ roleUid: roleUidInput('roleUid'), ...window }, OBJECT_ERROR);
/** Body of set team roles: `{roleUids, includeHidden?, notBefore?, expiresAt?}`. */
export const setTeamRolesInput = z.object({ roleUids: uidList, includeHidden: flag('includeHidden'), ...window }, OBJECT_ERROR);
/** The role uid in a remove path. */
export const roleUidParam = roleUidInput('roleUID');
