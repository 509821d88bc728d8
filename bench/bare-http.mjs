// The transport floor of the scale benchmark (bench/scale.ts): a bare node:http server, no
// framework, answering `GET /?bytes=N` with a JSON array of `{action, scope}` pairs of about N
// bytes (N = 0: `{}`), gzip- or brotli-compressed once per size and then served from memory when
// the request's Accept-Encoding allows (the same choice as the service's: brotli first), as a
// cached answer at its cheapest would be. Prints `listening <port>` once it listens on 127.0.0.1
// (PORT, default 0: a free port).
import { createServer } from 'node:http';
import { brotliCompressSync, gzipSync } from 'node:zlib';

const bodies = new Map();

function bodyOf(bytes) {
  let body = bodies.get(bytes);
  if (!body) {
    const pairs = [];
    let length = 2;
    for (let i = 0; length < bytes; i++) {
      const pair = { action: `scale.resource${i % 17}:read`, scope: `scale:uid:${i}` };
      length += JSON.stringify(pair).length + 1;
      pairs.push(pair);
    }
    const identity = Buffer.from(bytes === 0 ? '{}\n' : `${JSON.stringify(pairs)}\n`);
    body = { identity, gzip: gzipSync(identity), br: brotliCompressSync(identity) };
    bodies.set(bytes, body);
  }
  return body;
}

const server = createServer((request, response) => {
  const url = new URL(request.url ?? '/', 'http://bare');
  const body = bodyOf(Number(url.searchParams.get('bytes') ?? 0));
  const accept = String(request.headers['accept-encoding'] ?? '');
  const encoding = body.identity.length < 1024 ? null : /\bbr\b/.test(accept) ? 'br' : /\bgzip\b/.test(accept) ? 'gzip' : null;
  const payload = encoding ? body[encoding] : body.identity;
  response.writeHead(200, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': payload.length,
    ...(encoding && { 'content-encoding': encoding, vary: 'Accept-Encoding' }),
  });
  response.end(payload);
});
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  process.stdout.write(`listening ${server.address().port}\n`);
});
process.on('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
