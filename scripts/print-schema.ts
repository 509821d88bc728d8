/** Writes schema.graphql from the Pothos schema (npm run schema:print); a test keeps it in sync. */
import { writeFileSync } from 'node:fs';
import { printSchema } from 'graphql';
import { schema } from '../src/http/schema.js';

writeFileSync(new URL('../schema.graphql', import.meta.url), `${printSchema(schema)}\n`);
console.log('schema.graphql written');
