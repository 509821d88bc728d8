/**
 * TEST-ONLY query fields that reach a User, ServiceAccount or Team by id, so tests can read the
 * fields this branch adds to those types before the directory queries (`user(id)`, `team(id)`,
 * `serviceAccount(id)`) exist. They enforce no organization wall on purpose: the fields below
 * them must hold it on their own. Use from a test file with
 *
 *   vi.mock('../../src/graphql/schema.js', async (original) => {
 *     await original();
 *     return { schema: (await import('../helpers/subject-queries.js')).schemaWithSubjectQueries() };
 *   });
 */
import type { GraphQLSchema } from 'graphql';
import { builder } from '../../src/graphql/builder.js';
import { ServiceAccountType } from '../../src/graphql/types/service-account.js';
import { TeamType } from '../../src/graphql/types/team.js';
import { UserType } from '../../src/graphql/types/user.js';

let built: GraphQLSchema | undefined;

/** The app's schema plus `userById`, `serviceAccountById`, `teamById` (nullable). */
export function schemaWithSubjectQueries(): GraphQLSchema {
  if (built) return built;
  builder.queryFields((t) => ({
    userById: t.prismaField({
      type: UserType,
      nullable: true,
      args: { id: t.arg.int({ required: true }) },
      resolve: (query, _root, args, ctx) => ctx.services.db.user.findFirst({ ...query, where: { id: args.id, isServiceAccount: false } }),
    }),
    serviceAccountById: t.prismaField({
      type: ServiceAccountType,
      nullable: true,
      args: { id: t.arg.int({ required: true }) },
      resolve: (query, _root, args, ctx) => ctx.services.db.user.findFirst({ ...query, where: { id: args.id, isServiceAccount: true } }),
    }),
    teamById: t.prismaField({
      type: TeamType,
      nullable: true,
      args: { id: t.arg.int({ required: true }) },
      resolve: (query, _root, args, ctx) => ctx.services.db.team.findUnique({ ...query, where: { id: args.id } }),
    }),
  }));
  built = builder.toSchema({ sortSchema: true });
  return built;
}
