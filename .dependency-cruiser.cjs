/**
 * The layer rules of STYLE.md, enforced: platform <- kernel <- modules <- http | cli | app.
 * A feature module uses another only through its public files (service, inputs, graphql, rest);
 * modules/shared holds what every feature's doors share. No cycles anywhere: between files, nor
 * between feature folders.
 */
/** What sits above the modules: the doors, the composition root and the configuration (config.ts and its config-*.ts parts). */
const DOORS = 'http/|cli/|app\\.ts$|main\\.ts$|config[-a-z]*\\.ts$';
module.exports = {
  forbidden: [
    { name: 'no-circular', severity: 'error', from: {}, to: { circular: true } },
    {
      name: 'no-feature-folder-cycle',
      comment:
        'feature folders never import each other in a loop, even when no single file does (STYLE.md habit 15): ' +
        'what two features share moves down to the kernel or modules/shared, or one calls the other one way only',
      severity: 'error',
      scope: 'folder',
      from: { path: '^src/modules/[^/]+' },
      to: { path: '^src/modules/[^/]+', circular: true },
    },
    {
      name: 'platform-knows-no-access-rule',
      comment: 'platform/ (database, migrations, logger, clock, passwords) imports nothing above it',
      severity: 'error',
      from: { path: '^src/platform/' },
      to: { path: `^src/(kernel/|modules/|${DOORS})` },
    },
    {
      name: 'kernel-below-modules',
      severity: 'error',
      from: { path: '^src/kernel/' },
      to: { path: `^src/(modules/|${DOORS})` },
    },
    {
      name: 'modules-below-doors',
      comment: 'features know nothing of HTTP plumbing, the CLI or the app configuration',
      severity: 'error',
      from: { path: '^src/modules/' },
      to: { path: `^src/(${DOORS})` },
    },
    {
      name: 'module-internals-stay-inside',
      comment: "a feature uses another feature's service, inputs, graphql or rest file, never its other files",
      severity: 'error',
      from: { path: '^src/modules/([^/]+)/' },
      to: {
        path: '^src/modules/([^/]+)/',
        pathNot: ['^src/modules/$1/', '^src/modules/shared/', '^src/modules/[^/]+/(service|inputs|graphql|rest)\\.ts$'],
      },
    },
    {
      name: 'shared-is-not-a-feature',
      comment: 'modules/shared serves every feature and imports none of them (types of services.ts aside)',
      severity: 'error',
      from: { path: '^src/modules/shared/' },
      to: { path: '^src/modules/(?!shared/|services\\.ts$)' },
    },
    {
      name: 'doors-apart',
      comment: 'the CLI and the HTTP door are siblings',
      severity: 'error',
      from: { path: '^src/(cli|http)/' },
      to: { path: '^src/(app\\.ts|main\\.ts)' },
    },
    { name: 'cli-not-http', severity: 'error', from: { path: '^src/cli/' }, to: { path: '^src/http/' } },
    { name: 'http-not-cli', severity: 'error', from: { path: '^src/http/' }, to: { path: '^src/cli/' } },
    {
      name: 'no-prisma-in-doors',
      comment: 'the CLI and the REST/GraphQL plumbing reach the database only through module services',
      severity: 'error',
      from: { path: '^src/cli/' },
      to: { path: '^src/generated/prisma/' },
    },
  ],
  options: {
    // Generated Prisma code is a node (so no-prisma-in-doors sees edges into it) but is not walked.
    doNotFollow: { path: ['node_modules', '^src/generated/'] },
    includeOnly: '^src/',
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'], extensions: ['.ts', '.js'] },
  },
};
