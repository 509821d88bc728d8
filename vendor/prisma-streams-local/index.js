// Stand-in for @prisma/streams-local, installed through the `overrides` of the root package.json.
//
// The Prisma CLI (needed for `prisma generate`) depends on @prisma/dev, which depends on
// @prisma/streams-local, a package that declares Node >= 22. @prisma/dev imports it only inside
// `prisma dev` (a local Prisma Postgres with durable streams), which portcullis never runs: its
// database is SQLite, migrated by src/platform/migrations.ts. Installing the real package would
// put code that does not support this project's Node (>= 20.19, package.json `engines`) in
// node_modules, which scripts/check-engines.mjs refuses. So the one function @prisma/dev calls
// refuses with a message instead.

/** @returns {never} */
export function startLocalDurableStreamsServer() {
  throw new Error(
    '@prisma/streams-local is not installed in portcullis (it needs Node >= 22); `prisma dev` is not supported here',
  );
}
