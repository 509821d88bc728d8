/**
 * Names for the yoga plugins of src/app.ts, recognized by an identifier their hooks' source
 * text contains (plugins are plain objects: they carry no name), with the hooks they use. The
 * more specific signs come first. A plugin
 * nothing matches is named by its position and hooks, so it is still measured; a test
 * (test/operations/bench-plugin-names.test.ts) keeps every plugin of the app named.
 */
import type { Plugin } from 'graphql-yoga';

const SIGNS: [RegExp, string][] = [
  [/router\.find\(/, 'useRouter (every path but /graphql)'],
  [/recordConnection/, 'useConnection'],
  [/setExecuteFn\(run\)/, 'useExecution (graphql-js, compiled when hot)'],
  [/refuseDeclaredLength/, 'useBodyLimit'],
  [/JSON_TYPES|notJsonMessage/, 'useJsonPosts'],
  [/csrf|requestHeaders/i, 'useCSRFPrevention'],
  [/maxDocumentBytes|hasLoneSurrogate/, 'useGraphQLGate'],
  [/GRAPHQL_VALIDATION_FAILED|isVariableError/, 'useBadRequestStatus'],
  [/Object\.values\(result\.data\)/, 'usePartialStatus'],
  [/getSSEProcessor|withIds\(/, 'useSseEventIds'],
  [/secretsAloneRule/, 'useSecretsAlone'],
  [/unauthenticated\b/, 'useGraphiQLAuth'],
  [/operationCost|listDepth/, 'useListLimits (cost, list depth)'],
  [/maxTokens|MaxTokens|token/i, 'max-tokens (graphql-armor)'],
  [/maxDepth|MaxDepth|depth/i, 'max-depth (graphql-armor)'],
  [/maxAliases|alias/i, 'max-aliases (graphql-armor)'],
  [/directive/i, 'max-directives (graphql-armor)'],
  [/access\.run|\.run\(principal/, 'useAccessFence'],
  [/consoleAnswers|API_CSP|COMMON/, 'useSecurityHeaders'],
  [/x-request-id|requestIdOf/, 'useRequestLog'],
];

function sourceOf(value: unknown, depth = 0): string {
  if (typeof value === 'function') return value.toString();
  if (depth > 1 || typeof value !== 'object' || value === null) return '';
  return Object.values(value)
    .map((v) => sourceOf(v, depth + 1))
    .join('\n');
}

/**
 * A readable name for the plugin at `index` (from 0) of the list: its factory's name and its
 * hooks, `useAccessFence (onExecute)`.
 */
export function pluginName(plugin: Plugin, index: number): string {
  const hooks = Object.keys(plugin);
  if (hooks.length === 0) return `plugin ${index + 1} of the list: no hooks (switched off by its setting)`;
  const text = sourceOf(plugin);
  const found = SIGNS.find(([sign]) => sign.test(text));
  return `${found ? found[1] : `unnamed plugin ${index + 1} of the list`} (${hooks.join(', ')})`;
}
