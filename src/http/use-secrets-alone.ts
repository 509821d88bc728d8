/**
 * A secret shown once must not be lost to another field's failure. A mutation field whose result
 * carries a secret (declared next to the field with `extensions: { returnsSecret: true }`:
 * createApiKey, createServiceAccountToken) is nullable, so a later nullable field's error stays
 * local; but a non-null mutation field that fails nulls the whole `data`, secret included
 * (GraphQL's null propagation). So a document that selects a secret-returning mutation field must
 * select nothing else at the root of that mutation, directly or through fragments: refused with
 * 400 GRAPHQL_VALIDATION_FAILED before anything runs, so no secret is lost to another field's failure.
 */
import {
  type ASTVisitor,
  type FieldNode,
  type FragmentDefinitionNode,
  GraphQLError,
  Kind,
  type SelectionSetNode,
  type ValidationContext,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';

/**
 * The root fields an operation runs, fragments flattened (`... on Mutation { f }`, `...F`): a
 * field reached through a fragment fails and nulls `data` just as a direct one does. Each
 * fragment is entered once (a cycle is refused by validation anyway).
 */
function rootFields(selectionSet: SelectionSetNode, context: ValidationContext, seen = new Set<string>()): FieldNode[] {
  const fields: FieldNode[] = [];
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) fields.push(selection);
    else if (selection.kind === Kind.INLINE_FRAGMENT) fields.push(...rootFields(selection.selectionSet, context, seen));
    else if (!seen.has(selection.name.value)) {
      seen.add(selection.name.value);
      const fragment: FragmentDefinitionNode | null | undefined = context.getFragment(selection.name.value);
      if (fragment) fields.push(...rootFields(fragment.selectionSet, context, seen));
    }
  }
  return fields;
}

/**
 * Validation rule: a secret-returning mutation field is the only root field of its operation
 * (counted by response key, fragments flattened: the same field spread twice runs once).
 */
function secretsAloneRule(context: ValidationContext): ASTVisitor {
  return {
    OperationDefinition(node) {
      if (node.operation !== 'mutation') return;
      const mutationType = context.getSchema().getMutationType();
      if (!mutationType) return;
      const fields = mutationType.getFields();
      const root = rootFields(node.selectionSet, context);
      const secret = root.find((f) => (fields[f.name.value]?.extensions as { returnsSecret?: boolean } | undefined)?.returnsSecret);
      const keys = new Set(root.map((f) => f.alias?.value ?? f.name.value));
      if (secret && keys.size > 1) {
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
