/**
 * Input validation shared by both doors: REST passes parsed JSON, GraphQL passes its typed
 * arguments, and both go through the same zod schema, so a rule can't be enforced on one door
 * only.
 */
import { z } from 'zod';
import { actionProblem, type PermissionPair, scopeProblem } from './catalogue.js';
import { DomainError } from './errors.js';
import { ORG_ROLES } from './principal.js';

/**
 * Parses `input` with `schema`.
 * @throws DomainError VALIDATION_FAILED (400) whose message names the first bad field and why,
 *   e.g. `name: Required`; every issue is listed in `details.issues`.
 */
export function parseInput<T extends z.ZodType>(schema: T, input: unknown): z.output<T> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issues = result.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message }));
  const first = issues[0];
  const message = first ? (first.path ? `${first.path}: ${first.message}` : first.message) : 'invalid input';
  throw new DomainError('VALIDATION_FAILED', message, { issues });
}

/** A permission as sent by a client: action required, scope optional ("" = none). */
export const permissionInput = z
  .object({
    action: z.string({ error: 'action is required and must be a string' }),
    scope: z.string({ error: 'scope must be a string' }).nullish(),
  })
  .transform((p, ctx): PermissionPair => {
    const scope = p.scope ?? '';
    const problem = actionProblem(p.action) ?? scopeProblem(scope);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
    return { action: p.action, scope };
  });

/** Most permissions one role may be given (also the bound of Role.permissions in the GraphQL cost estimate). */
export const MAX_ROLE_PERMISSIONS = 1000;

/** A list of permissions, duplicates removed (order of first occurrence kept). */
export const permissionList = z
  .array(permissionInput, { error: 'permissions must be an array of {action, scope}' })
  .max(MAX_ROLE_PERMISSIONS, `at most ${MAX_ROLE_PERMISSIONS} permissions`)
  .transform((list) => {
    const seen = new Set<string>();
    return list.filter((p) => {
      const key = `${p.action}\u0000${p.scope}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  });

/**
 * Largest row id: ids are created by this service (SQLite rowids, PostgreSQL `integer` serials),
 * positive and far below this; a larger one would overflow PostgreSQL's `integer` (a 500).
 */
export const MAX_ID = 2_147_483_647;

/**
 * A whole number written as text (a path, a query parameter, a scope's last part, a CLI
 * argument): 1 to 10 decimal digits, nothing else (no sign, space, fraction or exponent), else
 * null. Ten digits hold every id up to MAX_ID and stay exact as a JS number. The lexical half of
 * the one id rule; idFromText adds the range.
 */
export function wholeNumberText(text: string): number | null {
  return /^\d{1,10}$/.test(text) ? Number(text) : null;
}

/**
 * The id a text names (wholeNumberText, 1..MAX_ID), else null: for the callers that skip what
 * is not an id (Grafana ignores a teamId that is not a number; a scope `users:id:x` names no
 * row) or word their own error (the CLI, the organization header). Failing with a 400: parseId.
 */
export function idFromText(text: string): number | null {
  const id = wholeNumberText(text);
  return id !== null && id >= 1 && id <= MAX_ID ? id : null;
}

/**
 * A positive row id, from a GraphQL argument (number) or a REST path or query (string of
 * digits); `field` names it in the 400. The one id rule of both doors (idFromText for text).
 */
export const idInput = (field: string) =>
  z.preprocess(
    (value) => (typeof value === 'string' ? (wholeNumberText(value) ?? value) : value),
    z
      .number({ error: `${field} is required and must be a positive whole number` })
      .int(`${field} must be a positive whole number`)
      .positive(`${field} must be a positive whole number`)
      .max(MAX_ID, `${field} is too large`),
  );

/**
 * Parses one id (idInput) outside an object.
 * @throws DomainError VALIDATION_FAILED (400) "<field> must be a positive whole number".
 */
export function parseId(field: string, value: unknown): number {
  // A valid id answers without building the schema (building it cost 0.1 ms of each warm listing);
  // anything else goes through idInput for its 400, so the rule and its messages stay one.
  const id = typeof value === 'string' ? wholeNumberText(value) : typeof value === 'number' ? value : null;
  if (id !== null && Number.isInteger(id) && id >= 1 && id <= MAX_ID) return id;
  return parseInput(idInput(field), value);
}

/** Longest login, email, name or team name stored (Grafana's column limit is 190). */
export const MAX_NAME_LENGTH = 190;

/** An org role: Viewer, Editor, Admin or None. */
export const orgRoleInput = z.enum(ORG_ROLES, { error: `role must be one of ${ORG_ROLES.join(', ')}` });

/** A required display name (trimmed, 1..190 characters). */
export const nameInput = (field: string) =>
  z
    .string({ error: `${field} is required and must be a string` })
    .trim()
    .min(1, `${field} is required`)
    .max(MAX_NAME_LENGTH, `${field} is longer than ${MAX_NAME_LENGTH} characters`);

/** An email address: something@something, no white space, at most 190 characters. */
export const emailInput = (field: string) =>
  z
    .string({ error: `${field} must be a string` })
    .trim()
    .max(MAX_NAME_LENGTH, `${field} is longer than ${MAX_NAME_LENGTH} characters`)
    .regex(/^[^\s@]+@[^\s@]+$/, `${field} must be an email address`);

/** A `{...}` body or input object's error when it is not an object. */
export const OBJECT_ERROR = { error: 'body must be a JSON object' } as const;
