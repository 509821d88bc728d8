/**
 * A requirement: the permission an operation needs, declared once next to its feature and used
 * three ways: the service checks `requirement.for(params)` (which also writes the 403 text,
 * `Evaluator.describe()`), the REST route table declares it, and the GraphQL field description is
 * `requirement.text()`. So a rule is written once for both doors and their documentation
 * (Grafana's route table names its evaluator the same way).
 */
import type { Evaluator } from './evaluator.js';

/** Parameter values an evaluator is built from (ids from the path or arguments). */
export type RequirementParams<P extends string> = Record<P, string | number>;

/** A declared requirement with parameters `P` (see the module comment). */
export interface Requirement<P extends string = never> {
  /** The evaluator for concrete parameters (the target's id, ...). */
  for(params: RequirementParams<P>): Evaluator;
  /** For documentation: the evaluator with `<param>` placeholders, plus the note. */
  text(): string;
  /** What the service checks besides the evaluator (delegation, Service Admin), for readers. */
  readonly note: string | undefined;
}

/**
 * Declares a requirement.
 * @param params names of the parameters `build` reads (they appear as `<name>` in `text()`).
 * @param build the evaluator for given parameter values.
 * @param note what is checked besides, e.g. "and every permission of the role (delegation)".
 */
export function requirement<P extends string = never>(
  params: readonly P[],
  build: (params: RequirementParams<P>) => Evaluator,
  note?: string,
): Requirement<P> {
  const placeholders = Object.fromEntries(params.map((p) => [p, `<${p}>`])) as RequirementParams<P>;
  return {
    for: build,
    note,
    text: () => `${build(placeholders).summary()}${note ? `, ${note}` : ''}`,
  };
}

/** GraphQL description suffix: "Needs <requirement>." */
export function needs(requirement: Requirement<string>): string {
  return `Needs ${requirement.text()}.`;
}
