/**
 * Inputs of users, shared by every door: createUser / updateUser (GraphQL, CLI), Grafana's admin
 * forms (`POST /api/admin/users`, `PUT /api/users/:id`, `.../password`, `.../permissions`) and the
 * user search's paging. Password policy: Grafana's default (at least 4 characters); logins may not
 * be `api_key`, which basic auth reserves.
 */
import { z } from 'zod';
import { emailInput, idInput, MAX_NAME_LENGTH, orgRoleInput } from '../../kernel/inputs.js';
import { DEFAULT_PER_PAGE, pageNumberInput, pageSizeInput } from '../shared/paging.js';

/** Shortest password accepted (Grafana's default policy: at least 4 characters). */
export const MIN_PASSWORD_LENGTH = 4;
export const MAX_PASSWORD_LENGTH = 256;

/** `api_key` as a basic-auth login means "the password is an API key" (service-interface.md). */
const RESERVED_LOGINS = new Set(['api_key']);

const login = z
  .string({ error: 'login is required and must be a string' })
  .trim()
  .min(1, 'login is required')
  .max(MAX_NAME_LENGTH, `login is longer than ${MAX_NAME_LENGTH} characters`)
  // Basic auth splits "login:password" at the first colon, so a colon would make it unusable.
  .regex(/^[^\s:]+$/, 'login must not contain white space or ":"')
  .refine((v) => !RESERVED_LOGINS.has(v), 'login "api_key" is reserved for API key authentication');
const password = z
  .string({ error: 'password is required and must be a string' })
  .min(MIN_PASSWORD_LENGTH, `password must be at least ${MIN_PASSWORD_LENGTH} characters`)
  .max(MAX_PASSWORD_LENGTH, `password is longer than ${MAX_PASSWORD_LENGTH} characters`);
const displayName = z
  .string({ error: 'name must be a string' })
  .trim()
  .max(MAX_NAME_LENGTH, `name is longer than ${MAX_NAME_LENGTH} characters`);

/**
 * createUser input. `orgId` (default: the organization acted in) is the organization the user
 * joins with `orgRole` (default Viewer); `isServiceAdmin` needs a Service Admin.
 */
export const createUserInput = z.object(
  {
    login,
    email: emailInput('email'),
    name: displayName.nullish(),
    password,
    orgId: idInput('orgId').nullish(),
    orgRole: orgRoleInput.nullish(),
    isServiceAdmin: z.boolean({ error: 'isServiceAdmin must be a boolean' }).nullish(),
  },
  { error: 'input must be an object' },
);
export type CreateUserInput = z.output<typeof createUserInput>;

/** updateUser input: omitted fields keep their value. */
export const updateUserInput = z.object(
  {
    login: login.nullish(),
    email: emailInput('email').nullish(),
    name: displayName.nullish(),
    password: password.nullish(),
    isServiceAdmin: z.boolean({ error: 'isServiceAdmin must be a boolean' }).nullish(),
  },
  { error: 'input must be an object' },
);

const optionalText = (field: string) => z.string({ error: `${field} must be a string` }).nullish();

/**
 * `POST /api/admin/users` body as Grafana documents it (AdminCreateUserForm): `name`, `email`,
 * `login`, `password`, `OrgId` (`orgId` accepted too: Grafana's JSON decoding ignores case).
 */
export const adminCreateUserBody = z.object(
  {
    name: optionalText('name'),
    email: optionalText('email'),
    login: optionalText('login'),
    password: z.string({ error: 'password is required and must be a string' }),
    OrgId: idInput('OrgId').nullish(),
    orgId: idInput('orgId').nullish(),
  },
  { error: 'body must be a JSON object' },
);

/**
 * The admin form as a createUser input, with Grafana's fallbacks (AdminCreateUser): login and
 * email are trimmed, a missing login is the email and a missing email the login ("Validation
 * error, need specify either username or email" when both are missing). An email taken from the
 * login need not look like an address, as in Grafana; a given one must.
 */
export const adminCreateUserForm = adminCreateUserBody
  .transform((body, ctx) => {
    const givenLogin = body.login?.trim() ?? '';
    const givenEmail = body.email?.trim() ?? '';
    if (givenLogin === '' && givenEmail === '') {
      ctx.addIssue({ code: 'custom', path: ['login'], message: 'Validation error, need specify either username or email' });
      return z.NEVER;
    }
    if (givenEmail !== '' && !emailInput('email').safeParse(givenEmail).success) {
      ctx.addIssue({ code: 'custom', path: ['email'], message: 'email must be an email address' });
      return z.NEVER;
    }
    return {
      login: givenLogin || givenEmail,
      email: givenEmail || givenLogin,
      name: body.name ?? null,
      password: body.password,
      orgId: body.OrgId ?? body.orgId ?? null,
    };
  })
  .pipe(
    z.object({
      login,
      email: z.string().max(MAX_NAME_LENGTH, `email is longer than ${MAX_NAME_LENGTH} characters`),
      name: displayName.nullable(),
      password,
      orgId: z.number().nullable(),
    }),
  );

/**
 * `PUT /api/users/:id` body (Grafana's UpdateUserCommand: `login`, `email`, `name`, `theme`;
 * theme is accepted and ignored). As in Grafana, a missing login is the email, and one of the two
 * is required; a missing name is kept.
 */
export const updateUserProfileBody = z.object(
  {
    login: optionalText('login'),
    email: optionalText('email'),
    name: optionalText('name'),
    theme: optionalText('theme'),
  },
  { error: 'body must be a JSON object' },
);

/** updateUserProfileBody as an updateUser input (login, email, name), with Grafana's fallback. */
export const updateUserProfileForm = updateUserProfileBody
  .transform((body, ctx) => {
    const email = body.email?.trim() || null;
    const givenLogin = body.login?.trim() || null;
    if (givenLogin === null && email === null) {
      ctx.addIssue({ code: 'custom', path: ['login'], message: 'Validation error, need to specify either username or email' });
      return z.NEVER;
    }
    return { login: givenLogin ?? email, email, name: body.name ?? null };
  })
  .pipe(z.object({ login, email: emailInput('email').nullable(), name: displayName.nullable() }));

/** `PUT /api/admin/users/:id/password` body (Grafana's AdminUpdateUserPasswordForm). */
export const setPasswordInput = z.object({ password }, { error: 'body must be a JSON object' });

/** `PUT /api/admin/users/:id/permissions` body (Grafana's AdminUpdateUserPermissionsForm): the Service Admin flag. */
export const setServiceAdminInput = z.object(
  { isGrafanaAdmin: z.boolean({ error: 'isGrafanaAdmin is required and must be a boolean' }) },
  { error: 'body must be a JSON object' },
);

/**
 * User search (`GET /api/users`, `/api/users/search`, GraphQL searchUsers): `query` is found in
 * login, email or name; `perPage` defaults to 1000 and `page` to 1 (Grafana's `perpage`, `page`).
 */
export const searchUsersInput = z.object(
  {
    query: z
      .string({ error: 'query must be a string' })
      .trim()
      .max(MAX_NAME_LENGTH, `query is longer than ${MAX_NAME_LENGTH} characters`)
      .nullish(),
    page: pageNumberInput('page'),
    perPage: pageSizeInput('perPage', DEFAULT_PER_PAGE),
  },
  { error: 'input must be an object' },
);

/** `GET /api/users/lookup?loginOrEmail=`: a login or an email ("" finds nobody, as in Grafana). */
export const loginOrEmailInput = z
  .string({ error: 'loginOrEmail must be a string' })
  .trim()
  .max(MAX_NAME_LENGTH, `loginOrEmail is longer than ${MAX_NAME_LENGTH} characters`);
