/**
 * `npm run schema:print`: writes schema.graphql from the Pothos schema, then the console's
 * introspection types (web/graphql-env.d.ts) from that file with gql.tada's own CLI (`gql.tada
 * generate-output`, configured by the gql.tada plugin entry of tsconfig.json). The console's
 * `graphql()` documents are typed against those types, so `npm run typecheck` fails on a console
 * query the schema no longer answers. test/http/schema-file.test.ts keeps both files in sync.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { printSchema } from 'graphql';
import { schema } from '../src/http/schema.js';

/** The console's introspection types, where the tsconfig plugin entry's `tadaOutputLocation` names them. */
export const INTROSPECTION_FILE = fileURLToPath(new URL('../web/graphql-env.d.ts', import.meta.url));

/**
 * Runs `gql.tada generate-output` for this repository's tsconfig.json, writing to `output`.
 * The output is named explicitly: without it, the CLI writes to standard output whenever that is
 * piped (`npm run schema:print | cat`) instead of to the file.
 */
export function generateIntrospection(output: string): void {
  const cli = fileURLToPath(import.meta.resolve('gql.tada/cli'));
  const tsconfig = fileURLToPath(new URL('../tsconfig.json', import.meta.url));
  try {
    execFileSync(process.execPath, [cli, 'generate-output', '--tsconfig', tsconfig, '--output', output], { stdio: 'pipe' });
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: Buffer | string; stderr?: Buffer | string };
    throw new Error(`gql.tada generate-output failed:\n${stdout}${stderr}`);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(new URL('../schema.graphql', import.meta.url), `${printSchema(schema)}\n`);
  console.log('schema.graphql written');
  generateIntrospection(INTROSPECTION_FILE);
  console.log('web/graphql-env.d.ts written');
}
