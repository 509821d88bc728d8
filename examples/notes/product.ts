/**
 * A worked example: "notes", a small product guarded by portcullis. At start it registers its
 * roles with the gateway (PUT /api/access-control/plugins/notes/roles): a reader role granted to
 * Viewers (so Editors and Admins too) and a writer role granted to nobody, to be assigned to users
 * or teams. It keeps the permissions of the users it serves in memory and checks them locally
 * with the gateway's own evaluator (src/kernel/evaluator.ts), and stays correct by following the
 * gateway's change feed (GET /api/access-control/changes): before it answers a request it reads
 * the changes after the last revision it applied (one read shared by the requests that arrive
 * together) and forgets what they name, so a revocation acknowledged by the gateway is refused by
 * its very next request. A request carrying `X-Access-Revision-At-Least` (a revision a client got
 * from a write) is answered at that revision or later. While the gateway cannot be read it
 * answers 503, never from what it may no longer know; the next request resumes from its revision
 * (410 from the feed: it forgets everything and starts again from the head).
 *
 * Who is calling comes from `X-User-Id`, set by the sign-in proxy in front of the product; the
 * product's own gateway credentials (`auth`) need roles:write on permissions:type:escalate (to
 * register), users.permissions:read on users:* (to read permissions) and access.changes:read
 * (the feed; the fixed role fixed:accesschanges:reader).
 */
import { createServer, type Server } from 'node:http';
import { PermissionIndex, permission } from '../../src/kernel/evaluator.js';

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

/** Changes read per page of the feed (its largest page). */
const FEED_PAGE = 1000;
/**
 * Changes that can change only the permissions of the users they name (assignments to them, their
 * memberships, their accounts and credentials); any other change (a role edited, a team's roles,
 * a basic role) may reach anyone, so everything is forgotten.
 */
const ABOUT_NAMED_USERS = /^(user_role|user|org_user|team_member|service_account|service_account_token|api_key)\./;

export interface NotesOptions {
  /** Base URL of the gateway, e.g. http://127.0.0.1:3000 */
  gateway: string;
  /** Authorization header value the product sends to the gateway. */
  auth: string;
}

interface Change {
  revision: number;
  kinds: string[];
  users: number[];
}

/** What the product knows of its users' permissions, and the revision it knows them at. */
export class FollowedPermissions {
  /** The revision applied; undefined before the first read of the feed. */
  revision: number | undefined;
  /** Reads of the gateway (feed and permissions), for tests. */
  reads = 0;
  private readonly byUser = new Map<number, PermissionIndex>();
  /** Moved whenever something is forgotten: a load started before it is not kept. */
  private epoch = 0;
  private running: Promise<void> | undefined;
  private waiting: Promise<void> | undefined;

  constructor(private readonly get: (path: string) => Promise<Response>) {}

  /** Applies every change committed before the call (a read started after it, shared by concurrent callers). */
  catchUp(): Promise<void> {
    if (this.waiting) return this.waiting;
    if (!this.running) return this.launch();
    const waiting = this.running
      .catch(() => undefined)
      .then(() => {
        this.waiting = undefined;
        return this.launch();
      });
    this.waiting = waiting;
    return waiting;
  }

  /** The permissions of `userId`, from memory or read from the gateway. */
  async of(userId: number): Promise<PermissionIndex> {
    const known = this.byUser.get(userId);
    if (known) return known;
    const epoch = this.epoch;
    this.reads++;
    const res = await this.get(`/api/access-control/users/${userId}/permissions`);
    if (res.status === 404) return PermissionIndex.EMPTY; // not a member: nothing
    if (!res.ok) throw new Error(`permissions of ${userId}: ${res.status}`);
    const index = PermissionIndex.from((await res.json()) as { action: string; scope: string }[]);
    if (epoch === this.epoch) this.byUser.set(userId, index);
    return index;
  }

  private launch(): Promise<void> {
    const run = this.read().finally(() => {
      if (this.running === run) this.running = undefined;
    });
    this.running = run;
    return run;
  }

  private async read(): Promise<void> {
    for (;;) {
      this.reads++;
      const after = this.revision === undefined ? '' : `after=${this.revision}&`;
      const res = await this.get(`/api/access-control/changes?${after}limit=${FEED_PAGE}`);
      if (res.status === 410) {
        // The changes after our revision are gone: forget everything, go on from the head.
        this.forget();
        this.revision = ((await res.json()) as { head: number }).head;
        return;
      }
      if (!res.ok) throw new Error(`change feed: ${res.status}`);
      const page = (await res.json()) as { changes: Change[]; next: number };
      if (this.revision === undefined) this.forget();
      for (const change of page.changes) {
        if (change.kinds.every((kind) => ABOUT_NAMED_USERS.test(kind))) {
          this.epoch++;
          for (const user of change.users) this.byUser.delete(user);
        } else this.forget();
      }
      this.revision = page.next;
      if (page.changes.length < FEED_PAGE) return;
    }
  }

  private forget(): void {
    this.epoch++;
    this.byUser.clear();
  }
}

/**
 * Registers the roles, then serves GET /notes (notes:read) and POST /notes (notes:write) on
 * 127.0.0.1. Answers 401 without `X-User-Id`, 403 without the permission, 400 for an
 * `X-Access-Revision-At-Least` the gateway never issued, 503 while the gateway cannot be read.
 */
export async function startNotes(options: NotesOptions): Promise<{ server: Server; url: string; followed: FollowedPermissions }> {
  const gateway = (method: string, path: string, body?: unknown) =>
    fetch(`${options.gateway}${path}`, {
      method,
      headers: { authorization: options.auth, 'content-type': 'application/json' },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
  const registered = await gateway('PUT', '/api/access-control/plugins/notes/roles', ROLES);
  if (!registered.ok) throw new Error(`notes: role registration failed: ${registered.status} ${await registered.text()}`);
  const followed = new FollowedPermissions((path) => gateway('GET', path));

  const notes: { id: number; text: string; by: number }[] = [];
  const server = createServer(async (req, res) => {
    const send = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    const userId = Number(req.headers['x-user-id']);
    if (!Number.isInteger(userId) || userId <= 0) return send(401, { message: 'X-User-Id is required' });
    const may = async (action: string) => permission(action, 'notes:*').evaluate(await followed.of(userId));
    try {
      await followed.catchUp();
      const atLeast = req.headers['x-access-revision-at-least'];
      if (typeof atLeast === 'string' && !(Number(atLeast) <= (followed.revision ?? 0)))
        return send(400, { message: `revision ${atLeast} was never issued` });
      const route = `${req.method} ${req.url}`;
      if (route === 'GET /notes') return (await may('notes:read')) ? send(200, notes) : send(403, { message: 'needs notes:read' });
      if (route === 'POST /notes') {
        if (!(await may('notes:write'))) return send(403, { message: 'needs notes:write' });
        let text = '';
        for await (const chunk of req) text += chunk;
        const note = { id: notes.length + 1, text: String((JSON.parse(text || '{}') as { text?: unknown }).text ?? ''), by: userId };
        notes.push(note);
        return send(200, note);
      }
      return send(404, { message: 'not found' });
    } catch {
      return send(503, { message: 'the gateway cannot be read; try again' });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return { server, url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`, followed };
}
