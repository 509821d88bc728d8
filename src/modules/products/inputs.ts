/**
 * Inputs of product role registration, shared by the REST body, the GraphQL arguments and the
 * `<provisioning>/plugins/<productId>.json|yaml` files: Grafana's `plugin.json` `roles` array,
 * `[{ role: { name, displayName, description, permissions }, grants: [basic role, ...] }]`.
 *
 * Rules (upstream-behaviour.md "Escalation and provisioning"): role names are
 * `plugins:<productId>:<name>`; every action starts with `<productId>.` or `<productId>:`, so a
 * product can grant neither this service's actions nor another product's; and the product id is
 * none of this service's namespaces (product `users` may not declare `users:write`).
 */
import { z } from 'zod';
import { PRODUCT_PREFIX } from '../../kernel/builtin-roles.js';
import { SERVICE_NAMESPACES } from '../../kernel/catalogue.js';
import { OBJECT_ERROR, permissionList } from '../../kernel/inputs.js';
import { RESERVED_ROLE_NAME_PREFIXES } from '../../kernel/lookalikes.js';
import { type BasicRoleName, SERVICE_ADMIN } from '../../kernel/principal.js';

/** A product id: letters, digits, `_` and `-`, 1..100 characters, starting with a letter or digit. */
const PRODUCT_ID_PATTERN = /^[a-zA-Z0-9][a-zA-Z0-9_-]{0,99}$/;
/** The `<name>` part of `plugins:<productId>:<name>`. */
const ROLE_PART_PATTERN = /^[a-zA-Z0-9][a-zA-Z0-9_.:-]{0,79}$/;
/** Most roles one product may register; the spec shows no limit, this keeps a request bounded. */
export const MAX_PRODUCT_ROLES = 100;

/** The basic roles a registered role may be granted to, and the spellings accepted for each. */
const GRANT_NAMES: Record<string, BasicRoleName> = {
  Viewer: 'Viewer',
  Editor: 'Editor',
  Admin: 'Admin',
  [SERVICE_ADMIN]: SERVICE_ADMIN,
  ServiceAdmin: SERVICE_ADMIN,
  'Grafana Admin': SERVICE_ADMIN,
};

/** A product id or namespace as compared for clashes: lower case, without `_` and `-`. */
const folded = (id: string) => id.toLowerCase().replace(/[-_]/g, '');

/**
 * Product ids that are taken: every namespace of this service's own actions
 * and scopes (catalogue.SERVICE_NAMESPACES: users, teams, org, orgs, roles, serviceaccounts,
 * apikey, permissions, ...) and the reserved role name prefixes (fixed, basic, plugins,
 * managed), each also with a trailing "s" added or removed (`apikeys`, `user`), all folded.
 * A product's actions start with its id, so no product can declare an action of this service.
 */
const RESERVED_PRODUCT_IDS: ReadonlySet<string> = new Set(
  [...SERVICE_NAMESPACES, ...RESERVED_ROLE_NAME_PREFIXES.map((p) => p.slice(0, -1))]
    .map(folded)
    .flatMap((n) => [n, `${n}s`, n.endsWith('s') ? n.slice(0, -1) : n]),
);

/** True when `productId` is, or differs only in case, `_`, `-` or a plural "s" from, a namespace of the service. */
export function isReservedProductId(productId: string): boolean {
  return RESERVED_PRODUCT_IDS.has(folded(productId));
}

/** The product id of a path, argument or file. */
export const productIdInput = z
  .string({ error: 'productId is required and must be a string' })
  .regex(PRODUCT_ID_PATTERN, 'productId must be 1-100 letters, digits, "_" or "-", starting with a letter or digit')
  .superRefine((id, ctx) => {
    if (isReservedProductId(id)) {
      ctx.addIssue({
        code: 'custom',
        message: `productId "${id}" is a namespace of this service (users, teams, org, roles, ...) and cannot be registered`,
      });
    }
  });

const text = (field: string) => z.string({ error: `${field} must be a string` }).max(2000, `${field} is longer than 2000 characters`);

const grant = z
  .string({ error: 'grants[] must be a string' })
  .refine((g) => g in GRANT_NAMES, 'grants[] must be one of Viewer, Editor, Admin, Service Admin')
  .transform((g) => GRANT_NAMES[g] as BasicRoleName);

const productRole = z.object(
  {
    role: z.object(
      {
        name: z.string({ error: 'name is required and must be a string' }),
        displayName: text('displayName').nullish(),
        description: text('description').nullish(),
        permissions: permissionList.nullish(),
      },
      OBJECT_ERROR,
    ),
    grants: z.array(grant, { error: 'grants must be an array of basic role names' }).nullish(),
  },
  OBJECT_ERROR,
);

/** One registered role after parsing. */
export type ProductRoleInput = z.output<typeof productRole>;

/**
 * The roles array of `productId`, with the naming and action-prefix rules checked per element
 * (issue paths like `1.role.permissions.0.action`, so files can point at the line).
 */
export function productRolesInput(productId: string) {
  const namePrefix = `${PRODUCT_PREFIX}${productId}:`;
  return z
    .array(productRole, { error: 'roles must be an array of {role, grants}' })
    .max(MAX_PRODUCT_ROLES, `at most ${MAX_PRODUCT_ROLES} roles per product`)
    .superRefine((roles, ctx) => {
      const seen = new Set<string>();
      roles.forEach(({ role }, i) => {
        const rest = role.name.startsWith(namePrefix) ? role.name.slice(namePrefix.length) : null;
        if (rest === null || !ROLE_PART_PATTERN.test(rest)) {
          ctx.addIssue({ code: 'custom', path: [i, 'role', 'name'], message: `name must be "${namePrefix}<name>", got "${role.name}"` });
        } else if (seen.has(role.name)) {
          ctx.addIssue({ code: 'custom', path: [i, 'role', 'name'], message: `role "${role.name}" is declared twice` });
        }
        seen.add(role.name);
        (role.permissions ?? []).forEach((p, j) => {
          if (!p.action.startsWith(`${productId}.`) && !p.action.startsWith(`${productId}:`)) {
            ctx.addIssue({
              code: 'custom',
              path: [i, 'role', 'permissions', j, 'action'],
              message: `action "${p.action}" must start with "${productId}." or "${productId}:"`,
            });
          }
        });
      });
    });
}

/** A registration file, `<provisioning>/plugins/<productId>.json|yaml`: `{productId, roles}`. */
export const productFileInput = z.object({ productId: productIdInput, roles: z.unknown() }, OBJECT_ERROR);
