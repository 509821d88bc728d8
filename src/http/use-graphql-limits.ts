/**
 * Limits of one GraphQL operation, from GraphQL Armor's envelop plugins (issue #10 item 1): lexer
 * tokens (checked while parsing, so a token bomb stops early), field depth (fragments
 * flattened), aliases, directives, and a cost for list fields (objects 2, scalars 1, times 1.5
 * per depth level). A refused document answers 400 with yoga's GRAPHQL_PARSE_FAILED or
 * GRAPHQL_VALIDATION_FAILED code (use-bad-request-status.ts). Introspection is limited like any
 * query except for cost, whose rule exempts `__schema` (GraphiQL's introspection query is deep).
 */
import { costLimitPlugin } from '@escape.tech/graphql-armor-cost-limit';
import { maxAliasesPlugin } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthPlugin } from '@escape.tech/graphql-armor-max-depth';
import { maxDirectivesPlugin } from '@escape.tech/graphql-armor-max-directives';
import { maxTokensPlugin } from '@escape.tech/graphql-armor-max-tokens';
import type { GraphQLError, ValidationContext } from 'graphql';
import type { Plugin } from 'graphql-yoga';

/**
 * Armor's rules throw their error by default, which aborts validation with an error yoga does
 * not recognise (another copy of graphql-js) and answers 200; reported instead, it becomes an
 * ordinary validation error (400 GRAPHQL_VALIDATION_FAILED, use-bad-request-status.ts).
 */
const report = {
  propagateOnRejection: false,
  onReject: [(context: ValidationContext | null, error: GraphQLError) => context?.reportError(error)],
};

/** The bounds, from config (SecurityConfig). */
export interface GraphQLLimits {
  maxTokens: number;
  maxDepth: number;
  maxAliases: number;
  maxDirectives: number;
  maxCost: number;
}

/** The yoga plugins enforcing `limits`. */
export function graphqlLimitPlugins(limits: GraphQLLimits): Plugin[] {
  return [
    maxTokensPlugin({ n: limits.maxTokens }),
    maxDepthPlugin({ n: limits.maxDepth, flattenFragments: true, ignoreIntrospection: true, ...report }),
    maxAliasesPlugin({ n: limits.maxAliases, ...report }),
    maxDirectivesPlugin({ n: limits.maxDirectives, ...report }),
    costLimitPlugin({ maxCost: limits.maxCost, objectCost: 2, scalarCost: 1, depthCostFactor: 1.5, ignoreIntrospection: true, ...report }),
  ] as Plugin[];
}
