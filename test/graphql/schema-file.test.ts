import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { schema } from '../../src/graphql/schema.js';

// Node loads graphql's CommonJS build for Pothos (graphql 16 has no "exports" map), while vite
// would resolve a test's `import 'graphql'` to index.mjs: print with the build the schema uses.
const { printSchema } = createRequire(import.meta.url)('graphql') as typeof import('graphql');

describe('schema.graphql', () => {
  it('matches the schema the code builds (run `npm run schema:print` after changing types)', () => {
    const committed = readFileSync(new URL('../../schema.graphql', import.meta.url), 'utf8');
    expect(committed).toBe(`${printSchema(schema)}\n`);
  });
});
