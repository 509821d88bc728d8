import { readFileSync } from 'node:fs';
import { printSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { schema } from '../../src/http/schema.js';

describe('schema.graphql', () => {
  it('matches the schema the code builds (run `npm run schema:print` after changing types)', () => {
    const committed = readFileSync(new URL('../../schema.graphql', import.meta.url), 'utf8');
    expect(committed).toBe(`${printSchema(schema)}\n`);
  });
});
