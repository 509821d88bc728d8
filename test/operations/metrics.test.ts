/**
 * `GET /metrics`: off unless METRICS_ENABLED, optional basic auth (Grafana's
 * settings), and metrics that move with traffic, read back with a Prometheus text-format parser:
 * requests by method, route TEMPLATE and status, latency histograms, permission-cache hits and
 * misses, authentication failures by method, database time, the build.
 */
import parsePrometheusTextFormat, { type MetricFamily, type Sample } from 'parse-prometheus-text-format';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, BAD_PASSWORD } from '../support/app.js';
import { createObservedApp, type ObservedApp } from './observed-app.js';

const SCRAPER = { login: 'prometheus', password: 'scrape-secret' };

async function scrape(app: ObservedApp): Promise<MetricFamily[]> {
  const res = await app.request('/metrics', { auth: SCRAPER });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return parsePrometheusTextFormat(await res.text());
}

function family(families: MetricFamily[], name: string): MetricFamily {
  const found = families.find((f) => f.name === name);
  if (!found) throw new Error(`no metric ${name} in ${families.map((f) => f.name).join(', ')}`);
  return found;
}

function sample(families: MetricFamily[], name: string, labels: Record<string, string> = {}): Sample | undefined {
  return family(families, name).metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
}

/** A counter's value (0 when the series does not exist yet). */
function counter(families: MetricFamily[], name: string, labels: Record<string, string> = {}): number {
  return Number(sample(families, name, labels)?.value ?? 0);
}

/** An unlabelled histogram's observation count (0 before the first observation). */
function observations(families: MetricFamily[], name: string): number {
  return Number(sample(families, name)?.count ?? 0);
}

/**
 * The observation count of a LABELLED histogram series, from the registry itself: the parser
 * (like prom2json, whose output it copies) folds labelled histograms into bucket counts only.
 */
async function labelledObservations(app: ObservedApp, name: string, labels: Record<string, string>): Promise<number> {
  const metric = await app.metrics.registry.getSingleMetric(name)?.get();
  // A histogram's values are its buckets, sum and count, told apart by `metricName`.
  const values = (metric?.values ?? []) as { metricName?: string; labels: Record<string, string | number>; value: number }[];
  const series = values.find(
    (v) => v.metricName === `${name}_count` && Object.entries(labels).every(([k, value]) => v.labels[k] === value),
  );
  return series?.value ?? 0;
}

describe('/metrics, enabled with basic auth', () => {
  let app: ObservedApp;
  beforeAll(async () => {
    app = await createObservedApp({
      env: { METRICS_ENABLED: 'true', METRICS_BASIC_AUTH_USERNAME: SCRAPER.login, METRICS_BASIC_AUTH_PASSWORD: SCRAPER.password },
    });
  });
  afterAll(() => app.close());

  it('asks for its own credentials: none, wrong ones and the admin of the gateway get 401', async () => {
    for (const auth of [null, { login: SCRAPER.login, password: 'wrong' }, ADMIN]) {
      const res = await app.request('/metrics', { auth });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Basic realm="metrics"');
      expect(await res.text()).not.toContain('portcullis_');
    }
  });

  it('counts REST requests under their route template, never the raw path', async () => {
    const before = await scrape(app);
    const template = { method: 'GET', route: '/api/access-control/roles/:uid', status: '404' };
    const start = counter(before, 'portcullis_http_requests_total', template);
    const timed = await labelledObservations(app, 'portcullis_http_request_duration_seconds', template);
    expect((await app.request('/api/access-control/roles/first-missing-uid')).status).toBe(404);
    expect((await app.request('/api/access-control/roles/second-missing-uid')).status).toBe(404);
    const after = await scrape(app);
    expect(counter(after, 'portcullis_http_requests_total', template)).toBe(start + 2);
    expect(family(after, 'portcullis_http_request_duration_seconds').type).toBe('HISTOGRAM');
    expect(await labelledObservations(app, 'portcullis_http_request_duration_seconds', template)).toBe(timed + 2);
    const routes = family(after, 'portcullis_http_requests_total').metrics.map((m) => m.labels?.route ?? '');
    expect(routes.filter((r) => r.includes('missing-uid'))).toEqual([]);
  });

  it('labels GraphQL, unknown paths and the probes with bounded names', async () => {
    const before = await scrape(app);
    const graphql = { method: 'POST', route: '/graphql', status: '200' };
    const unknown = { method: 'GET', route: 'unmatched', status: '404' };
    const health = { method: 'GET', route: '/api/health', status: '200' };
    const counts = [graphql, unknown, health].map((labels) => counter(before, 'portcullis_http_requests_total', labels));
    expect((await app.graphql('{ viewer { login } }')).status).toBe(200);
    expect((await app.request('/no/such/page/12345')).status).toBe(404);
    expect((await app.request('/api/health', { auth: null })).status).toBe(200);
    const after = await scrape(app);
    expect([graphql, unknown, health].map((labels) => counter(after, 'portcullis_http_requests_total', labels))).toEqual(
      counts.map((c) => c + 1),
    );
  });

  it('counts permission-cache misses, then hits, as the access service loads and reuses an index', async () => {
    const before = await scrape(app);
    const hits = counter(before, 'portcullis_permission_cache_lookups_total', { result: 'hit' });
    const misses = counter(before, 'portcullis_permission_cache_lookups_total', { result: 'miss' });
    app.services.access.invalidate(); // the next check must load
    expect((await app.request('/api/access-control/roles')).status).toBe(200);
    const afterFirst = await scrape(app);
    expect(counter(afterFirst, 'portcullis_permission_cache_lookups_total', { result: 'miss' })).toBeGreaterThan(misses);
    const missesNow = counter(afterFirst, 'portcullis_permission_cache_lookups_total', { result: 'miss' });
    expect((await app.request('/api/access-control/roles')).status).toBe(200);
    const afterSecond = await scrape(app);
    expect(counter(afterSecond, 'portcullis_permission_cache_lookups_total', { result: 'hit' })).toBeGreaterThan(hits);
    expect(counter(afterSecond, 'portcullis_permission_cache_lookups_total', { result: 'miss' })).toBe(missesNow);
    expect(Number(sample(afterSecond, 'portcullis_permission_cache_entries')?.value)).toBeGreaterThanOrEqual(1);
  });

  it('counts authentication failures by the method tried and the error code', async () => {
    const before = await scrape(app);
    const basic = { method: 'basic', code: 'INVALID_CREDENTIALS' };
    const key = { method: 'api_key', code: 'INVALID_API_KEY' };
    const startBasic = counter(before, 'portcullis_auth_failures_total', basic);
    const startKey = counter(before, 'portcullis_auth_failures_total', key);
    expect((await app.request('/api/access-control/roles', { auth: BAD_PASSWORD })).status).toBe(401);
    expect((await app.request('/api/access-control/roles', { auth: { token: 'pcs_not-a-real-key' } })).status).toBe(401);
    expect((await app.request('/api/access-control/roles', { auth: { login: 'api_key', password: 'pcs_nope' } })).status).toBe(401);
    const after = await scrape(app);
    expect(counter(after, 'portcullis_auth_failures_total', basic)).toBe(startBasic + 1);
    expect(counter(after, 'portcullis_auth_failures_total', key)).toBe(startKey + 2);
  });

  it('measures database time: one observation per SQL statement', async () => {
    const before = await scrape(app);
    const start = observations(before, 'portcullis_database_query_duration_seconds');
    const startSum = Number(sample(before, 'portcullis_database_query_duration_seconds')?.sum ?? 0);
    app.services.access.invalidate();
    expect((await app.request('/api/access-control/roles?includeHidden=true')).status).toBe(200);
    const after = await scrape(app);
    expect(observations(after, 'portcullis_database_query_duration_seconds')).toBeGreaterThan(start);
    expect(Number(sample(after, 'portcullis_database_query_duration_seconds')?.sum)).toBeGreaterThan(startSum);
  });

  it('names the build, and exposes Node process metrics', async () => {
    const families = await scrape(app);
    const build = sample(families, 'portcullis_build_info');
    expect(build?.value).toBe('1');
    expect(build?.labels?.version).toBe('0.1.0');
    expect(build?.labels?.commit).toMatch(/^([0-9a-f]{7,64}|unknown)$/);
    expect(family(families, 'process_cpu_user_seconds_total').type).toBe('COUNTER');
  });
});

describe('/metrics, not enabled (the default)', () => {
  let app: ObservedApp;
  beforeAll(async () => {
    app = await createObservedApp();
  });
  afterAll(() => app.close());

  it('is an unknown path, even for the admin', async () => {
    const res = await app.request('/metrics');
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ message: 'Not found', code: 'NOT_FOUND' });
  });
});

describe('/metrics, enabled without credentials (Grafana default)', () => {
  let app: ObservedApp;
  beforeAll(async () => {
    app = await createObservedApp({ env: { METRICS_ENABLED: 'true' } });
  });
  afterAll(() => app.close());

  it('answers anyone', async () => {
    const res = await app.request('/metrics', { auth: null });
    expect(res.status).toBe(200);
    expect(parsePrometheusTextFormat(await res.text()).some((f) => f.name === 'portcullis_http_requests_total')).toBe(true);
  });
});
