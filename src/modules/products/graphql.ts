/**
 * GraphQL door of product role registration: `registerProductRoles(productId, roles)`, calling
 * the same ProductService method as PUT /api/access-control/plugins/:productId/roles. Grants take
 * the enum form (ServiceAdmin for "Service Admin").
 */
import { needs } from '../../kernel/requirements.js';
import { builder } from '../shared/builder.js';
import { PermissionInput } from '../shared/permission.js';
import { productRequirements } from './service.js';

const BasicRoleEnum = builder.enumType('BasicRole', {
  description: 'A basic role a registered product role can be granted to.',
  values: {
    Viewer: { value: 'Viewer' },
    Editor: { value: 'Editor' },
    Admin: { value: 'Admin' },
    ServiceAdmin: { value: 'Service Admin', description: 'Only when named: grants never reach it by inheritance.' },
  } as const,
});

const ProductRoleInput = builder.inputType('ProductRoleInput', {
  description: 'A role a product declares, as in the roles array of a Grafana plugin.json.',
  fields: (t) => ({
    name: t.string({ required: true, description: '"plugins:<productId>:<name>".' }),
    displayName: t.string(),
    description: t.string(),
    permissions: t.field({
      type: [PermissionInput],
      description: 'Every action starts with "<productId>." or "<productId>:".',
    }),
  }),
});

const ProductRoleRegistrationInput = builder.inputType('ProductRoleRegistrationInput', {
  fields: (t) => ({
    role: t.field({ type: ProductRoleInput, required: true }),
    grants: t.field({
      type: [BasicRoleEnum],
      description: 'Basic roles that hold the role; a grant to Viewer also reaches Editor and Admin, Editor reaches Admin.',
    }),
  }),
});

builder.mutationFields((t) => ({
  registerProductRoles: t.prismaField({
    type: ['Role'],
    description: `Replaces the roles a product registered (fixed roles named plugins:<productId>:<name>); roles and grants it no longer declares are withdrawn everywhere. Answers the product's roles. ${needs(productRequirements.register)}`,
    args: {
      productId: t.arg.string({
        required: true,
        description: '1-100 letters, digits, "_" or "-"; not a namespace of this service (users, teams, org, roles, ...).',
      }),
      roles: t.arg({ type: [ProductRoleRegistrationInput], required: true }),
    },
    resolve: (query, _root, args, ctx) => ctx.services.products.register(ctx.principal, args.productId, args.roles, query),
  }),
}));
