/**
 * The GraphQL inputs and arguments of the new organization operations match the zod schemas the
 * service parses (as test/http/input-descriptions.test.ts does for the older inputs): the same
 * fields, non-null exactly when zod requires them.
 */
import { type GraphQLField, type GraphQLInputObjectType, isNonNullType } from 'graphql';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { schema } from '../../src/http/schema.js';
import { addOrgUserByLoginBody, updateOrganizationInput } from '../../src/modules/orgs/inputs.js';

function expectSameFields(fields: Record<string, { type: unknown }>, zodSchema: z.ZodObject, label: string) {
  const zodFields = zodSchema.shape as Record<string, z.ZodType>;
  expect(Object.keys(fields).sort()).toEqual(Object.keys(zodFields).sort());
  for (const [field, zodField] of Object.entries(zodFields)) {
    const optional = zodField.safeParse(undefined).success;
    expect(isNonNullType(fields[field]?.type), `${label}.${field} non-null`).toBe(!optional);
  }
}

describe('organization inputs match their zod schemas', () => {
  it('UpdateOrganizationInput', () => {
    const type = schema.getType('UpdateOrganizationInput') as GraphQLInputObjectType;
    expectSameFields(type.getFields(), updateOrganizationInput, 'UpdateOrganizationInput');
  });

  it('addOrgUserByLogin arguments besides orgId', () => {
    const field = schema.getMutationType()?.getFields().addOrgUserByLogin as GraphQLField<unknown, unknown>;
    const args = Object.fromEntries(field.args.filter((a) => a.name !== 'orgId').map((a) => [a.name, a]));
    expectSameFields(args, addOrgUserByLoginBody, 'addOrgUserByLogin');
  });
});
