/**
 * The probes, rows of the router (router.ts) answered without credentials, before any GraphQL
 * plugin runs:
 * - `GET /api/health`, Grafana's shape: `{"database":"ok","version","commit"}` with 200, or
 *   `"database":"failing"` with 503 when the database does not answer within a second. Yoga's
 *   own health check (200 for any path ending in /health, any method) is switched off in
 *   hardening.ts, so nothing else answers for it and no API path is shadowed. `version` is
 *   package.json's, `commit` the build's (platform/build-info.ts).
 * - `GET /api/ready`, for orchestrators' readiness probes: 200 `{"ready":true}` only once the
 *   process finished starting (migrations, seed, provisioning: main.ts marks the Lifecycle ready)
 *   and is not shutting down, the database answers, and (PostgreSQL) the change feed knows other
 *   replicas' changes (while its listener is lost every request answers 503 DATABASE_UNAVAILABLE,
 *   so the load balancer had better send them elsewhere); otherwise 503 `{"ready":false,"reason"}`.
 *   Liveness is `/api/health`: a replica whose feed reconnects is not dead.
 * - `GET /api/frontend/settings`, the part of Grafana's frontend settings that API clients read
 *   to learn the server's version (the Python grafana-client's `connect()` and `version`):
 *   `{"buildInfo": {"version", "commit", "env": "production"}}`. Nothing in it is not already
 *   public through `/api/health`, so it needs no credentials either.
 * HEAD is answered like GET.
 */
import { packageVersion } from '../platform/build-info.js';
import { changesKnown, type Db, pingDatabase } from '../platform/database.js';
import { json } from './responses.js';
import type { PathRoute } from './router.js';

/** The path of the health check. */
export const HEALTH_PATH = '/api/health';
/** Grafana's frontend settings path (buildInfo only). */
const FRONTEND_SETTINGS_PATH = '/api/frontend/settings';
/** The path of the readiness check. */
export const READY_PATH = '/api/ready';

const VERSION = packageVersion();
const PING_TIMEOUT_MS = 1000;

/** Where the process is in its life; only `ready` makes the readiness check answer 200. */
export type LifecycleState = 'starting' | 'ready' | 'shutting down';

/** The process's state as main.ts moves it: starting -> ready -> shutting down. */
export class Lifecycle {
  private current: LifecycleState = 'starting';

  get state(): LifecycleState {
    return this.current;
  }

  /** Migrations, seed and provisioning are done: traffic may come. */
  markReady(): void {
    if (this.current === 'starting') this.current = 'ready';
  }

  /** SIGTERM or SIGINT: take this instance out of rotation. Final. */
  markShuttingDown(): void {
    this.current = 'shutting down';
  }
}

const PROBE_METHODS = ['GET', 'HEAD'];

/** The router's rows (router.ts) of the probes of the module comment; they ask for no credentials. */
export function probeRoutes(db: Db, lifecycle: Lifecycle, commit = 'unknown'): PathRoute[] {
  return [
    {
      methods: PROBE_METHODS,
      path: FRONTEND_SETTINGS_PATH,
      label: FRONTEND_SETTINGS_PATH,
      handler: () => json(200, { buildInfo: { version: VERSION, commit, env: 'production' } }),
    },
    {
      methods: PROBE_METHODS,
      path: HEALTH_PATH,
      label: HEALTH_PATH,
      handler: () =>
        pingDatabase(db, PING_TIMEOUT_MS).then((ok) => json(ok ? 200 : 503, { database: ok ? 'ok' : 'failing', version: VERSION, commit })),
    },
    {
      methods: PROBE_METHODS,
      path: READY_PATH,
      label: READY_PATH,
      handler: () => {
        const state = lifecycle.state;
        if (state !== 'ready') return json(503, { ready: false, reason: state });
        if (!changesKnown(db)) return json(503, { ready: false, reason: 'change feed reconnecting' });
        return pingDatabase(db, PING_TIMEOUT_MS).then((ok) =>
          ok ? json(200, { ready: true }) : json(503, { ready: false, reason: 'database not answering' }),
        );
      },
    },
  ];
}
