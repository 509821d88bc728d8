/**
 * A secret shown once must not be lost to another field's failure. A mutation field whose result
 * carries a secret (declared next to the field with `extensions: { returnsSecret: true }`:
 * createApiKey, createServiceAccountToken) is nullable, so a later nullable field's error stays
 * local; but a non-null mutation field that fails nulls the whole `data`, secret included
 * (GraphQL's null propagation). So a document that selects a secret-returning mutation field must
 * select nothing else at the root of that mutation: refused with 400 GRAPHQL_VALIDATION_FAILED
 * before anything runs (issue #10 "no partial-loss answers").
 */
import { type ASTVisitor, GraphQLError, Kind, type ValidationContext } from 'graphql';
import type { Plugin } from 'graphql-yoga';

/** Validation rule: a secret-returning mutation field is the only root field of its operation. */
function secretsAloneRule(context: ValidationContext): ASTVisitor {
  return {
    OperationDefinition(node) {
      if (node.operation !== 'mutation') return;
      const mutationType = context.getSchema().getMutationType();
      if (!mutationType) return;
      const fields = mutationType.getFields();
      const root = node.selectionSet.selections;
      const secret = root.find(
        (s) => s.kind === Kind.FIELD && (fields[s.name.value]?.extensions as { returnsSecret?: boolean } | undefined)?.returnsSecret,
      );
      if (secret && root.length > 1 && secret.kind === Kind.FIELD) {
        context.reportError(
          new GraphQLError(
            `${secret.name.value} returns a secret that is shown only once: send it as the only field of its mutation, so no other field's failure can lose it`,
            { nodes: [node] },
          ),
        );
      }
    },
  };
}

/** Yoga plugin adding the rule to every validation. */
export function useSecretsAlone(): Plugin {
  return {
    onValidate({ addValidationRule }) {
      addValidationRule(secretsAloneRule);
    },
  };
}
