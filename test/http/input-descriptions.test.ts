/**
 * GraphQL input types are tested against the zod schemas of their feature's inputs: the same
 * fields, and a field is non-null in GraphQL exactly when zod requires it. So the GraphQL door
 * cannot accept a shape the service refuses, nor hide a field the service reads.
 */
import { type GraphQLInputObjectType, isNonNullType } from 'graphql';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { schema } from '../../src/http/schema.js';
import { createApiKeyInput } from '../../src/modules/api-keys/inputs.js';
import { createOrganizationInput } from '../../src/modules/orgs/inputs.js';
import { createRoleInput, updateRoleInput } from '../../src/modules/roles/inputs.js';
import { createServiceAccountInput, updateServiceAccountInput } from '../../src/modules/service-accounts/inputs.js';
import { createTeamInput, updateTeamInput } from '../../src/modules/teams/inputs.js';
import { createUserInput, updateUserInput } from '../../src/modules/users/inputs.js';

const pairs: [string, z.ZodObject][] = [
  ['CreateRoleInput', createRoleInput],
  ['UpdateRoleInput', updateRoleInput],
  ['CreateApiKeyInput', createApiKeyInput],
  ['CreateOrganizationInput', createOrganizationInput],
  ['CreateTeamInput', createTeamInput],
  ['UpdateTeamInput', updateTeamInput],
  ['CreateUserInput', createUserInput],
  ['UpdateUserInput', updateUserInput],
  ['CreateServiceAccountInput', createServiceAccountInput],
  ['UpdateServiceAccountInput', updateServiceAccountInput],
];

describe('GraphQL inputs match the zod inputs', () => {
  it.each(pairs)('%s', (name, zodSchema) => {
    const type = schema.getType(name) as GraphQLInputObjectType | undefined;
    expect(type, `${name} is in the schema`).toBeDefined();
    const graphqlFields = (type as GraphQLInputObjectType).getFields();
    const zodFields = zodSchema.shape as Record<string, z.ZodType>;
    expect(Object.keys(graphqlFields).sort()).toEqual(Object.keys(zodFields).sort());
    for (const [field, zodField] of Object.entries(zodFields)) {
      const optional = zodField.safeParse(undefined).success;
      expect(isNonNullType(graphqlFields[field]?.type), `${name}.${field} non-null`).toBe(!optional);
    }
  });
});
