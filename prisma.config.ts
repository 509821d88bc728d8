import { defineConfig } from 'prisma/config';

// Used by the Prisma CLI only (generate, and migrate deploy where its engine exists).
// The service itself reads DATABASE_URL through src/config.ts.
export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  datasource: { url: process.env.DATABASE_URL ?? 'file:./data/portcullis.db' },
});
