/**
 * The Node HTTP server the app is served by, with the bounds a slow or greedy client meets before
 * any of the app runs (SECURITY.md "Resource limits"):
 *
 * - a request must arrive in bounded time: its headers within HEADERS_TIMEOUT_SECONDS (a new
 *   connection's first request too) and the whole of it, body included, within
 *   REQUEST_TIMEOUT_SECONDS of its first byte; else Node answers 408 and closes the connection
 *   (Node's own `headersTimeout` and `requestTimeout`, checked every `connectionsCheckingInterval`,
 *   here a quarter of the headers' time, at most a second). A client that sends a body one byte
 *   at a time is cut off the same way; a slow answer is not, the clock stops once the request
 *   has arrived;
 * - one client address holds at most MAX_CONNECTIONS_PER_CLIENT connections at once: one more is
 *   answered 429 TOO_MANY_CONNECTIONS and closed, without its requests reaching the app, while
 *   the address's other connections are served. The address is the socket's: nothing of the
 *   request has been read when the connection opens. Behind a trusted proxy (TRUST_PROXY) every
 *   socket is the proxy's, so counting them would make the per-client cap one for the whole
 *   service, a cap one slow client could fill: it is not applied there, and clients are bounded
 *   at the proxy (the timeouts still apply).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { httpStatusOf } from '../kernel/errors.js';

/** The bounds of the server (config-security.ts; TRUST_PROXY from config-auth.ts). */
export interface ServerLimits {
  /** Milliseconds for a whole request, headers and body, from its first byte. */
  requestTimeoutMs: number;
  /** Milliseconds for a request's headers (a new connection's first ones too); at most requestTimeoutMs. */
  headersTimeoutMs: number;
  /** Connections one socket address may hold open at once. */
  maxConnectionsPerClient: number;
  /** Behind one trusted proxy: the per-address cap is not applied (module comment). */
  trustProxy: boolean;
}

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

const REFUSAL_BODY = JSON.stringify({
  message: 'too many connections from this address: close one and try again',
  code: 'TOO_MANY_CONNECTIONS',
});
/** The raw answer on a connection over the cap, written before any request is read. */
const REFUSAL = [
  `HTTP/1.1 ${httpStatusOf('TOO_MANY_CONNECTIONS')} Too Many Requests`,
  'Content-Type: application/json; charset=utf-8',
  `Content-Length: ${Buffer.byteLength(REFUSAL_BODY)}`,
  'Retry-After: 1',
  'Connection: close',
  '',
  REFUSAL_BODY,
].join('\r\n');

/**
 * An HTTP server answering with `handler`, bounded by `limits` (module comment).
 * @throws RangeError (Node's ERR_OUT_OF_RANGE) when headersTimeoutMs exceeds requestTimeoutMs;
 *   config.ts refuses that setting first.
 */
export function createNodeServer(handler: Handler, limits: ServerLimits): Server {
  const refused = new WeakSet<Socket>();
  const server = createServer(
    {
      requestTimeout: limits.requestTimeoutMs,
      headersTimeout: limits.headersTimeoutMs,
      connectionsCheckingInterval: Math.min(1000, Math.max(50, Math.floor(limits.headersTimeoutMs / 4))),
    },
    (request, response) => {
      // Bytes a refused client sent before the close still parse into a request: never the app's.
      if (refused.has(request.socket)) return;
      handler(request, response);
    },
  );
  if (!limits.trustProxy) capConnections(server, limits.maxConnectionsPerClient, refused);
  return server;
}

/** Counts open sockets per remote address; one over `max` is answered REFUSAL and closed. */
function capConnections(server: Server, max: number, refused: WeakSet<Socket>): void {
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress;
    if (address === undefined) return; // closed already
    const count = open.get(address) ?? 0;
    if (count >= max) {
      refused.add(socket);
      socket.end(REFUSAL, () => socket.destroy());
      return;
    }
    open.set(address, count + 1);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left > 0) open.set(address, left);
      else open.delete(address);
    });
  });
}
