/**
 * Inputs of organizations and their memberships, shared by every door. REST bodies are the
 * `...Body` schemas (Grafana's CreateOrgCommand, UpdateOrgForm, AddOrgUserCommand,
 * UpdateOrgUserCommand); query strings go through `orgSearchInput` / `orgUsersInput`.
 */
import { z } from 'zod';
import { idInput, MAX_NAME_LENGTH, nameInput, OBJECT_ERROR, orgRoleInput } from '../../kernel/inputs.js';
import { DEFAULT_PER_PAGE, pageNumberInput, pageSizeInput } from '../shared/paging.js';

/** createOrganization input; the body of `POST /api/orgs`. */
export const createOrganizationInput = z.object({ name: nameInput('name') }, { error: 'input must be an object' });
/** updateOrganization input; the body of `PUT /api/org` and `PUT /api/orgs/:orgId`. */
export const updateOrganizationInput = z.object({ name: nameInput('name') }, OBJECT_ERROR);
/** The membership named by addOrgUser, updateOrgUserRole and removeOrgUser (parsed before the permission check). */
export const membershipInput = z.object({ orgId: idInput('orgId'), userId: idInput('userId') });
/**
 * The body of `PATCH /api/org/users/:userId` and `PATCH /api/orgs/:orgId/users/:userId`; the
 * `role` of addOrgUser / updateOrgUserRole (parsed after the permission check).
 */
export const orgUserRoleBody = z.object({ role: orgRoleInput }, OBJECT_ERROR);

/** A login or email as Grafana's AddOrgUserCommand takes it (matched exactly, after trimming). */
const loginOrEmailInput = z
  .string({ error: 'loginOrEmail is required and must be a string' })
  .trim()
  .min(1, 'loginOrEmail is required')
  .max(MAX_NAME_LENGTH, `loginOrEmail is longer than ${MAX_NAME_LENGTH} characters`);

/** The body of `POST /api/org/users` and `POST /api/orgs/:orgId/users`; addOrgUserByLogin arguments. */
export const addOrgUserByLoginBody = z.object({ loginOrEmail: loginOrEmailInput, role: orgRoleInput }, OBJECT_ERROR);

/** A free-text filter, trimmed; "" and null mean none. */
const filterParam = (field: string) =>
  z.preprocess(
    (value) => (value === null ? undefined : value),
    z
      .string({ error: `${field} must be a string` })
      .max(MAX_NAME_LENGTH, `${field} is longer than ${MAX_NAME_LENGTH} characters`)
      .optional(),
  );

/**
 * `GET /api/orgs` (Grafana's SearchOrgs): `query` is a name prefix, `name` an exact name,
 * `perpage` the page size (default 1000) and `page` the 0-based page, skipping
 * `perpage * page` organizations, as Grafana's store does. Paging: every list's rule (shared/paging.ts).
 */
export const orgSearchInput = z.object({
  query: filterParam('query'),
  name: filterParam('name'),
  page: pageNumberInput('page', 0),
  perpage: pageSizeInput('perpage', DEFAULT_PER_PAGE),
});

/**
 * Members of an organization (Grafana's SearchOrgUsersQuery): `query` matches login, email or
 * name (contains, case-insensitive for ASCII); `limit` keeps the first `limit` (0: all); `perpage`
 * and `page` (1-based), when either is given, page the answer instead (null when neither is).
 * Sizes and page numbers follow every list's rule (shared/paging.ts).
 */
export const orgUsersInput = z.object({
  query: filterParam('query'),
  limit: pageSizeInput('limit', 0),
  page: pageNumberInput('page').nullish(),
  perpage: pageSizeInput('perpage', DEFAULT_PER_PAGE).nullish(),
});
