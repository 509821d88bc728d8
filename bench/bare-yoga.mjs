// The baseline of the HTTP benchmark (bench/http.ts): graphql-yoga with its defaults and a
// one-field schema, in plain JavaScript (no loader), answering `{ __typename }`. Prints
// `listening <port>` once it listens on 127.0.0.1 (PORT, default 0: a free port).
import { createServer } from 'node:http';
import { createSchema, createYoga } from 'graphql-yoga';

const yoga = createYoga({ schema: createSchema({ typeDefs: 'type Query { ok: Boolean }' }) });
const server = createServer(yoga);
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  process.stdout.write(`listening ${server.address().port}\n`);
});
process.on('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
