import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { printSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { generateIntrospection, INTROSPECTION_FILE } from '../../scripts/print-schema.js';
import { schema } from '../../src/http/schema.js';

describe('schema.graphql', () => {
  it('matches the schema the code builds (run `npm run schema:print` after changing types)', () => {
    const committed = readFileSync(new URL('../../schema.graphql', import.meta.url), 'utf8');
    expect(committed).toBe(`${printSchema(schema)}\n`);
  });

  it("the console's introspection types (web/graphql-env.d.ts) match schema.graphql (run `npm run schema:print`)", () => {
    const dir = mkdtempSync(join(tmpdir(), 'portcullis-tada-'));
    try {
      const fresh = join(dir, 'graphql-env.d.ts');
      generateIntrospection(fresh);
      expect(readFileSync(INTROSPECTION_FILE, 'utf8')).toBe(readFileSync(fresh, 'utf8'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
