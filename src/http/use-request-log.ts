/**
 * One structured log line and one HTTP metric sample per request, and the
 * request id in `X-Request-Id` on every response (the caller's own when it sent a sane one,
 * request-id.ts; the audit log records the same id).
 *
 * The line: `reqId`, `method`, `route` (the template that answered, never the raw path), `status`,
 * `ms`, the principal (`kind`, `id`, `orgId`, `authMethod`; never a credential) and, for GraphQL,
 * the operation name and type, the document's signature and the error codes. Never a body, a
 * document, variables or a header. The signature is the SHA-256 of the document with every
 * literal blanked (strings "", numbers 0, lists empty; input objects keep their field names),
 * after Apollo's operation signatures: a hash of the raw text would let anyone holding the logs
 * test guesses of a password typed inline, while this one is the same for every document of the
 * same shape. Level `info`; `error` for a 5xx, written at once; `debug` for the probes
 * (health, readiness, metrics: orchestrators call them every few seconds and see their failures
 * themselves). Lines other than errors are written at the end of the event-loop turn that
 * answered (TurnLines).
 *
 * A request whose client went away before the answer (it closed the connection, or Node's HTTP
 * parser dropped it for malformed chunked data, mid-body or later) is logged and counted with
 * status 499 (nginx's "client closed request") and `aborted: true` at `info`, whatever the door
 * answered to nobody: a client's choice is neither a server error nor a 5xx sample.
 *
 * List the plugin LAST: its onResponse then sees the final response (after the security
 * headers; compression comes later, in Node: http/compression.ts) and sets the header on it. Its start time comes from the request
 * instrumentation, which wraps every plugin, so answers ended early (GraphiQL, CORS preflights)
 * are timed too.
 */
import { createHash } from 'node:crypto';
import { type DocumentNode, type GraphQLError, getOperationAST, Kind, print, visit } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Logger } from '../platform/logger.js';
import type { Metrics } from '../platform/metrics.js';
import { authenticatedAs } from './request-auth.js';
import { requestIdOf } from './request-id.js';
import { routeOf } from './request-route.js';
import { pathOf } from './url-path.js';

/** Paths answered by doors that do not tag their route: static, so safe as labels. */
const STATIC_ROUTES = new Set(['/graphql', '/login', '/logout', '/login/generic_oauth']);
/** The status logged and counted for a request whose client went away (nginx's convention). */
const CLIENT_CLOSED_REQUEST = 499;
/** Routes called by orchestrators and scrapers every few seconds: logged at debug. */
const PROBES = new Set(['/api/health', '/api/ready', '/metrics']);

interface GraphQLFacts {
  operation?: string;
  type?: string;
  document?: string;
  errors?: string[];
}

/**
 * The label of the route that answered `request`: its template when a door tagged one, a known
 * static path, else `unmatched` for a 404 and `other` otherwise (bounded in every case).
 */
export function routeLabel(request: Request, status: number): string {
  const tagged = routeOf(request);
  if (tagged) return tagged;
  const path = pathOf(request.url);
  if (STATIC_ROUTES.has(path)) return path;
  return status === 404 ? 'unmatched' : 'other';
}

const signatures = new WeakMap<DocumentNode, string>();

/** SHA-256 (hex) of `document` printed with its literals blanked (module comment). */
export function documentSignature(document: DocumentNode): string {
  let signature = signatures.get(document);
  if (signature === undefined) {
    const blanked = visit(document, {
      StringValue: () => ({ kind: Kind.STRING, value: '' }),
      IntValue: () => ({ kind: Kind.INT, value: '0' }),
      FloatValue: () => ({ kind: Kind.FLOAT, value: '0' }),
      ListValue: () => ({ kind: Kind.LIST, values: [] }),
    });
    signature = createHash('sha256').update(print(blanked)).digest('hex');
    // Yoga's parse cache hands out one AST per distinct text: hash it once.
    signatures.set(document, signature);
  }
  return signature;
}

function errorCodes(errors: readonly GraphQLError[] | undefined): string[] | undefined {
  if (!errors || errors.length === 0) return undefined;
  return [...new Set(errors.map((e) => String(e.extensions?.code ?? 'UNCODED')))];
}

export interface RequestLogDeps {
  log: Logger;
  metrics: Metrics;
}

/**
 * The request lines of one event-loop turn, written together once the turn's I/O is done
 * (`setImmediate`): pino then runs warm, line after line, instead of once between two requests'
 * other work, which made a line cost several times more CPU. A line waits at most until the end
 * of the turn that made its answer (under a millisecond); its `time` is when it was written, its
 * `ms` the request's own duration. At most one turn's answers are held, each already made.
 */
class TurnLines {
  private queued: ['debug' | 'info', object][] = [];

  constructor(private readonly log: Logger) {}

  /** Queues `line` at `level`, unless the logger leaves that level out. */
  add(level: 'debug' | 'info', line: object): void {
    if (!this.log.isLevelEnabled(level)) return;
    this.queued.push([level, line]);
    if (this.queued.length === 1) setImmediate(() => this.write());
  }

  private write(): void {
    const lines = this.queued;
    this.queued = [];
    for (const [level, line] of lines) this.log[level](line, 'request');
  }
}

/** Yoga plugin: the log line, the metric sample and the `X-Request-Id` header (module comment). */
export function useRequestLog(deps: RequestLogDeps): Plugin {
  const lines = new TurnLines(deps.log);
  const started = new WeakMap<Request, number>();
  const graphql = new WeakMap<Request, GraphQLFacts>();
  const factsOf = (request: Request): GraphQLFacts => {
    let facts = graphql.get(request);
    if (!facts) {
      facts = {};
      graphql.set(request, facts);
    }
    return facts;
  };
  return {
    instrumentation: {
      request({ request }, wrapped) {
        started.set(request, performance.now());
        return wrapped();
      },
    },
    onParams({ params, request }) {
      if (params.operationName) factsOf(request).operation = params.operationName;
    },
    onValidate({ context, params }) {
      // After parsing, so also for documents that fail validation; parse failures have no AST.
      const request = (context as { request?: Request }).request;
      if (!request) return;
      const facts = factsOf(request);
      facts.document = documentSignature(params.documentAST);
      const operation = getOperationAST(params.documentAST, facts.operation);
      if (operation) {
        facts.type = operation.operation;
        if (operation.name) facts.operation = operation.name.value;
      }
    },
    onResultProcess({ request, result }) {
      if (Array.isArray(result) || !('errors' in result)) return;
      const codes = errorCodes(result.errors as readonly GraphQLError[] | undefined);
      if (codes) factsOf(request).errors = codes;
    },
    onResponse({ request, response, setResponse }) {
      const reqId = requestIdOf(request);
      try {
        response.headers.set('x-request-id', reqId);
      } catch {
        // Headers of Response.redirect() and Response.error() are immutable: answer a copy.
        const headers = new Headers(response.headers);
        headers.set('x-request-id', reqId);
        setResponse(new Response(response.body, { status: response.status, statusText: response.statusText, headers }));
      }
      const start = started.get(request);
      const seconds = start === undefined ? 0 : (performance.now() - start) / 1000;
      // Node's adapter aborts the request's signal when the client's connection closes.
      const aborted = request.signal.aborted;
      const status = aborted ? CLIENT_CLOSED_REQUEST : response.status;
      const route = routeLabel(request, status);
      deps.metrics.request(request.method, route, status, seconds);
      const principal = authenticatedAs(request);
      const facts = graphql.get(request);
      const line = {
        reqId,
        method: request.method,
        route,
        status,
        ...(aborted && { aborted }),
        ms: Math.round(seconds * 10_000) / 10,
        ...(principal &&
          principal.kind !== 'anonymous' && {
            principal: { kind: principal.kind, id: principal.id, orgId: principal.orgId, authMethod: principal.authMethod },
          }),
        ...(facts && { graphql: facts }),
      };
      if (status >= 500 && !PROBES.has(route)) deps.log.error(line, 'request');
      else lines.add(PROBES.has(route) ? 'debug' : 'info', line);
    },
  };
}
