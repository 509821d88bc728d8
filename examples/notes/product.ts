/**
 * A worked example (issue #9 item 5): "notes", a small product guarded by portcullis. At start it
 * registers its roles with the gateway (PUT /api/access-control/plugins/notes/roles): a reader
 * role granted to Viewers (so Editors and Admins too) and a writer role granted to nobody, to be
 * assigned to users or teams. Each route asks the gateway before acting (POST
 * /api/access-control/check) and keeps the answer for `cacheMs`, so a revoked permission stops
 * working within that time. Who is calling comes from `X-User-Id`, set by the sign-in proxy in
 * front of the product; the product's own gateway credentials (`auth`) need roles:write on
 * permissions:type:escalate (to register) and users.permissions:read on users:* (to check).
 */
import { createServer, type Server } from 'node:http';

const ROLES = [
  {
    role: { name: 'plugins:notes:reader', displayName: 'Notes reader', permissions: [{ action: 'notes:read', scope: 'notes:*' }] },
    grants: ['Viewer'],
  },
  {
    role: { name: 'plugins:notes:writer', displayName: 'Notes writer', permissions: [{ action: 'notes:write', scope: 'notes:*' }] },
    grants: [],
  },
];

export interface NotesOptions {
  /** Base URL of the gateway, e.g. http://127.0.0.1:3000 */
  gateway: string;
  /** Authorization header value the product sends to the gateway. */
  auth: string;
  /** How long an answer of the gateway is reused, in milliseconds (default 2000). */
  cacheMs?: number;
}

/** Registers the roles, then serves GET /notes (notes:read) and POST /notes (notes:write) on 127.0.0.1. */
export async function startNotes(options: NotesOptions): Promise<{ server: Server; url: string }> {
  const gateway = (method: string, path: string, body: unknown) =>
    fetch(`${options.gateway}${path}`, {
      method,
      headers: { authorization: options.auth, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const registered = await gateway('PUT', '/api/access-control/plugins/notes/roles', ROLES);
  if (!registered.ok) throw new Error(`notes: role registration failed: ${registered.status} ${await registered.text()}`);

  const answers = new Map<string, { allowed: boolean; until: number }>();
  async function may(userId: number, action: string, scope: string): Promise<boolean> {
    const key = `${userId} ${action} ${scope}`;
    const cached = answers.get(key);
    if (cached && cached.until > Date.now()) return cached.allowed;
    const res = await gateway('POST', '/api/access-control/check', { userId, action, scopes: [scope] });
    const allowed = res.ok && ((await res.json()) as { allowed: boolean }).allowed; // any failure denies
    answers.set(key, { allowed, until: Date.now() + (options.cacheMs ?? 2000) });
    return allowed;
  }

  const notes: { id: number; text: string; by: number }[] = [];
  const server = createServer(async (req, res) => {
    const send = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    const userId = Number(req.headers['x-user-id']);
    if (!Number.isInteger(userId) || userId <= 0) return send(401, { message: 'X-User-Id is required' });
    const route = `${req.method} ${req.url}`;
    if (route === 'GET /notes') {
      return (await may(userId, 'notes:read', 'notes:*')) ? send(200, notes) : send(403, { message: 'needs notes:read' });
    }
    if (route === 'POST /notes') {
      if (!(await may(userId, 'notes:write', 'notes:*'))) return send(403, { message: 'needs notes:write' });
      let text = '';
      for await (const chunk of req) text += chunk;
      const note = { id: notes.length + 1, text: String((JSON.parse(text || '{}') as { text?: unknown }).text ?? ''), by: userId };
      notes.push(note);
      return send(200, note);
    }
    return send(404, { message: 'not found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return { server, url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}` };
}
