/**
 * `GET /api/health`, Grafana's shape: `{"database":"ok","version","commit"}` with 200, or
 * `"database":"failing"` with 503 when the database does not answer within a second. No
 * credentials. Yoga's own health check (200 for any path ending in /health, any method) is
 * switched off in app.ts, so nothing else answers for it and no API path is shadowed.
 */
import { readFileSync } from 'node:fs';
import type { Plugin } from 'graphql-yoga';
import { type Db, pingDatabase } from '../platform/database.js';
import { json } from './responses.js';

/** The path of the health check. */
export const HEALTH_PATH = '/api/health';

const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/** Yoga plugin answering `GET /api/health` (and HEAD) before the REST routes. */
export function useHealth(db: Db, commit = 'unknown'): Plugin {
  return {
    async onRequest({ request, url, endResponse }) {
      if (url.pathname !== HEALTH_PATH || (request.method !== 'GET' && request.method !== 'HEAD')) return;
      const ok = await pingDatabase(db, 1000);
      endResponse(json(ok ? 200 : 503, { database: ok ? 'ok' : 'failing', version: VERSION, commit }));
    },
  };
}
