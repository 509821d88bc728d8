/**
 * `GET /metrics`: the Prometheus text exposition of the app's registry (platform/metrics.ts),
 * Grafana's path and settings (`[metrics] enabled`, `basic_auth_username`, `basic_auth_password`).
 * Unlike Grafana it is off unless METRICS_ENABLED=true: route names, traffic and failure counts
 * are reconnaissance for anyone who can reach the gateway, and the gateway often faces the
 * network. With METRICS_BASIC_AUTH_USERNAME/PASSWORD set it asks for those credentials (401 with
 * a `WWW-Authenticate` challenge otherwise); the gateway's own users and keys are not accepted,
 * so a scraper's secret opens nothing else. Off, the path is an unknown one (404).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { MetricsConfig } from '../config.js';
import type { Metrics } from '../platform/metrics.js';
import { json } from './responses.js';
import type { PathRoute } from './router.js';

/** The path of the metrics endpoint (Grafana's). */
export const METRICS_PATH = '/metrics';

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();

/** True when `header` is `Basic` with exactly `expected`; compares digests in constant time. */
function basicAuthMatches(header: string | null, expected: { username: string; password: string }): boolean {
  const match = /^basic\s+(\S+)\s*$/i.exec(header ?? '');
  const sent = match ? Buffer.from(match[1] as string, 'base64').toString('utf8') : '';
  return timingSafeEqual(digest(sent), digest(`${expected.username}:${expected.password}`));
}

/** The router's row (router.ts) serving `GET /metrics` (the module comment); none when disabled. */
export function metricsRoutes(metrics: Metrics, config: MetricsConfig): PathRoute[] {
  if (!config.enabled) return [];
  const { basicAuth } = config;
  return [
    {
      methods: ['GET', 'HEAD'],
      path: METRICS_PATH,
      label: METRICS_PATH,
      handler: async ({ request }) => {
        if (basicAuth && !basicAuthMatches(request.headers.get('authorization'), basicAuth)) {
          return json(401, { message: 'Unauthorized', code: 'INVALID_CREDENTIALS' }, { 'www-authenticate': 'Basic realm="metrics"' });
        }
        const body = await metrics.registry.metrics();
        return new Response(body, { status: 200, headers: { 'content-type': metrics.registry.contentType } });
      },
    },
  ];
}
