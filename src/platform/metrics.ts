/**
 * The service's Prometheus metrics (prom-client), one registry per app so that several apps in
 * one process (the tests) never share counters. Names carry the `portcullis_` prefix; labels
 * have bounded values only: a route TEMPLATE (`/api/access-control/roles/:uid`, `/graphql`),
 * never a raw path; a method from a fixed list; a status code; an error code of the kernel's
 * table. Served by `GET /metrics` (http/metrics-route.ts) when METRICS_ENABLED.
 */
import { createRequire } from 'node:module';
import type * as PromClient from 'prom-client';
import type { Registry } from 'prom-client';
import type { BuildInfo } from './build-info.js';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** Seconds; from a cached permission check (sub-millisecond) to a slow listing. */
const HTTP_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Seconds; SQLite statements are mostly well under a millisecond. */
const QUERY_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];

export interface MetricsOptions {
  build: BuildInfo;
  /**
   * METRICS_ENABLED. Off, nothing is recorded: no request, query or lookup pays for samples no
   * one can read (`GET /metrics` is then an unknown path). On, Node's process metrics as well
   * (`process_*`, `nodejs_*`, unprefixed as every Node exporter names them).
   */
  enabled: boolean;
  /** Principals in the permission cache now (AccessService.cachedPrincipals). */
  cacheEntries?: () => number;
}

/** What the rest of the service records; each method is cheap and never throws. */
export interface Metrics {
  readonly registry: Registry;
  /** One finished HTTP request: `route` is a template, `seconds` its handling time. */
  request(method: string, route: string, status: number, seconds: number): void;
  /** One permission-index lookup of the access service (kernel/permission-cache.ts PermissionCacheObserver). */
  permissionCache(result: 'hit' | 'miss'): void;
  /** One refused authentication: `method` as the request tried it (basic, api_key, session), `code` the error code. */
  authFailure(method: string, code: string): void;
  /** One SQL statement of `milliseconds`. */
  queryTime(milliseconds: number): void;
}

const ignore = () => undefined;

const requirePackage = createRequire(import.meta.url);
/**
 * prom-client, loaded when metrics are on or their (empty) registry is first read: a service
 * with METRICS_ENABLED off never loads it.
 */
const promClient = (): typeof PromClient => requirePackage('prom-client') as typeof PromClient;

/**
 * A new registry with the service's metrics (see the module comment for names and labels); when
 * not `enabled`, an empty registry and recorders that do nothing.
 */
export function createMetrics(options: MetricsOptions): Metrics {
  if (!options.enabled) {
    let empty: Registry | undefined;
    return {
      get registry() {
        empty ??= new (promClient().Registry)();
        return empty;
      },
      request: ignore,
      permissionCache: ignore,
      authFailure: ignore,
      queryTime: ignore,
    };
  }
  const { Counter, collectDefaultMetrics, Gauge, Histogram, Registry: Registries } = promClient();
  const registry = new Registries();
  const registers = [registry];
  collectDefaultMetrics({ register: registry });

  new Gauge({
    name: 'portcullis_build_info',
    help: 'Always 1; the labels name the running build.',
    labelNames: ['version', 'commit'],
    registers,
  }).set({ version: options.build.version, commit: options.build.commit }, 1);

  const requests = new Counter({
    name: 'portcullis_http_requests_total',
    help: 'HTTP requests answered, by method, route template and status code.',
    labelNames: ['method', 'route', 'status'],
    registers,
  });
  const durations = new Histogram({
    name: 'portcullis_http_request_duration_seconds',
    help: 'Time from receiving a request to its response being ready, by method, route template and status code.',
    labelNames: ['method', 'route', 'status'],
    buckets: HTTP_BUCKETS,
    registers,
  });
  const cache = new Counter({
    name: 'portcullis_permission_cache_lookups_total',
    help: 'Permission-index lookups of the access service: result="hit" served from the cache, "miss" loaded from the database.',
    labelNames: ['result'],
    registers,
  });
  const cacheEntries = options.cacheEntries;
  if (cacheEntries) {
    new Gauge({
      name: 'portcullis_permission_cache_entries',
      help: 'Principals whose permission index is cached now.',
      registers,
      collect() {
        this.set(cacheEntries());
      },
    });
  }
  const authFailures = new Counter({
    name: 'portcullis_auth_failures_total',
    help: 'Refused authentications, by the method the request tried (basic, api_key, session) and error code.',
    labelNames: ['method', 'code'],
    registers,
  });
  const queries = new Histogram({
    name: 'portcullis_database_query_duration_seconds',
    help: 'Time of each SQL statement; the sum is the time spent in the database.',
    buckets: QUERY_BUCKETS,
    registers,
  });
  // The hit and miss series exist from the start, so a rate over them is defined at once.
  cache.inc({ result: 'hit' }, 0);
  cache.inc({ result: 'miss' }, 0);

  return {
    registry,
    request(method, route, status, seconds) {
      const labels = { method: METHODS.has(method) ? method : 'other', route, status: String(status) };
      requests.inc(labels);
      durations.observe(labels, seconds);
    },
    permissionCache(result) {
      cache.inc({ result });
    },
    authFailure(method, code) {
      authFailures.inc({ method, code });
    },
    queryTime(milliseconds) {
      queries.observe(milliseconds / 1000);
    },
  };
}
