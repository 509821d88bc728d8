/**
 * A small round-robin HTTP load balancer for bench/replicas.ts, run as a process of its own (so
 * it does not share an event loop with autocannon): each request goes to the next backend port in
 * turn over kept-alive connections (node:http), its answer streamed back. Prints
 * `listening <port>` once it accepts connections on 127.0.0.1.
 *
 *   node --import tsx bench/support/round-robin.ts <backend port> [<backend port> ...]
 */
import { Agent, createServer, request } from 'node:http';

const ports = process.argv.slice(2).map(Number);
if (ports.length === 0 || ports.some((p) => !Number.isInteger(p) || p <= 0)) {
  console.error('usage: round-robin.ts <backend port> [<backend port> ...]');
  process.exit(2);
}
const agent = new Agent({ keepAlive: true, maxSockets: 256 });
let next = 0;

const server = createServer((req, res) => {
  const port = ports[next++ % ports.length] as number;
  const upstream = request({ host: '127.0.0.1', port, method: req.method, path: req.url, headers: req.headers, agent }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(res);
  });
  upstream.on('error', () => {
    if (!res.headersSent) res.writeHead(502);
    res.end();
  });
  req.pipe(upstream);
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  console.log(`listening ${typeof address === 'object' && address ? address.port : 0}`);
});
process.on('SIGTERM', () => process.exit(0));
