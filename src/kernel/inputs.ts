/**
 * Input validation shared by both doors: REST passes parsed JSON, GraphQL passes its typed
 * arguments, and both go through the same zod schema, so a rule can't be enforced on one door
 * only.
 */
import { z } from 'zod';
import { DomainError } from './errors.js';
import { actionProblem, type PermissionPair, scopeProblem } from './catalogue.js';

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

/** A list of permissions, duplicates removed (order of first occurrence kept). */
export const permissionList = z
  .array(permissionInput, { error: 'permissions must be an array of {action, scope}' })
  .max(1000, 'at most 1000 permissions')
  .transform((list) => {
    const seen = new Set<string>();
    return list.filter((p) => {
      const key = `${p.action}\u0000${p.scope}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  });

/** Query-string boolean: "true"/"1" true, "false"/"0"/absent false; anything else is a 400. */
export function parseBooleanParam(name: string, value: string | null | undefined): boolean {
  if (value === null || value === undefined || value === '' || value === 'false' || value === '0') return false;
  if (value === 'true' || value === '1') return true;
  throw new DomainError('VALIDATION_FAILED', `${name}: must be true or false`);
}
