/**
 * Names for the yoga plugins of src/app.ts, recognized by an identifier their hooks' source
 * text contains (plugins are plain objects: they carry no name). A plugin nothing matches is
 * named by its position and hooks, so a renamed plugin is still measured, only labelled less well.
 */
import type { Plugin } from 'graphql-yoga';

const SIGNS: [RegExp, string][] = [
  [/FRONTEND_SETTINGS_PATH/, 'useHealth'],
  [/READY_PATH|lifecycle\.state/, 'useReadiness'],
  [/METRICS_PATH/, 'useMetrics'],
  [/canonicalPagePath|strays/, 'useConsole'],
  [/recordConnection/, 'useConnection'],
  [/setExecuteFn\(run\)/, 'useExecution (graphql-js, compiled when hot)'],
  [/refuseDeclaredLength/, 'useBodyLimit'],
  [/csrf|requestHeaders/i, 'useCSRFPrevention'],
  [/maxDocumentBytes|hasLoneSurrogate/, 'useGraphQLGate'],
  [/GRAPHQL_VALIDATION_FAILED|isVariableError/, 'useBadRequestStatus'],
  [/secretsAloneRule/, 'useSecretsAlone'],
  [/OPENAPI_PATH|REFERENCE_PATH/, 'useOpenApi'],
  [/ASSET_CACHE|REFERENCE_PAGE_POLICY/, 'useOpenApiHeaders'],
  [/createRestRouter|rest\.answer\(request/, 'useRestRoutes'],
  [/unauthenticated\(\)/, 'useGraphiQLAuth'],
  [/operationCost|listDepth/, 'useListLimits (cost, list depth)'],
  [/maxTokens|MaxTokens|token/i, 'max-tokens (graphql-armor)'],
  [/maxDepth|MaxDepth|depth/i, 'max-depth (graphql-armor)'],
  [/maxAliases|alias/i, 'max-aliases (graphql-armor)'],
  [/directive/i, 'max-directives (graphql-armor)'],
  [/access\.run|\.run\(principal/, 'useAccessFence'],
  [/consoleAnswers|API_CSP|COMMON/, 'useSecurityHeaders'],
  [/useNotFound|NOT_FOUND|Not found/, 'useNotFound'],
  [/x-request-id|requestIdOf/, 'useRequestLog'],
];

function sourceOf(value: unknown, depth = 0): string {
  if (typeof value === 'function') return value.toString();
  if (depth > 1 || typeof value !== 'object' || value === null) return '';
  return Object.values(value)
    .map((v) => sourceOf(v, depth + 1))
    .join('\n');
}

/** A readable name for the plugin at `index` of the list. */
export function pluginName(plugin: Plugin, index: number): string {
  const hooks = Object.keys(plugin);
  if (hooks.length === 0) return `#${index} (no hooks: a plugin switched off)`;
  const text = sourceOf(plugin);
  const found = SIGNS.find(([sign]) => sign.test(text));
  return `${found ? found[1] : '?'} #${index} (${hooks.join(', ')})`;
}
