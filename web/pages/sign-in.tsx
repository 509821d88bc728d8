/**
 * Sign-in: login (or email) and password through `POST /login`, which sets the session cookie;
 * the OAuth button when the server has OAuth configured (the page's `portcullis-oauth` meta);
 * the error an OAuth attempt came back with (`/login?error=...`). After signing in (or when
 * already signed in) it leads to `next` when that is a path of this origin (next-path.ts), else `/`;
 * the OAuth login carries it to the server, which checks it again.
 */

import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { errorMessage, rest } from '../api.js';
import { TextField } from '../fields.js';
import { safeNextPath } from '../next-path.js';
import { Notice } from '../notice.js';
import { useSession } from '../session.js';
import { Page } from '../ui.js';

export function SignInPage() {
  const session = useSession();
  const { query, route } = useLocation();
  const [user, setUser] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(query.error ?? null);
  const oauth = document.querySelector<HTMLMetaElement>('meta[name="portcullis-oauth"]')?.content;
  // Where to go after signing in: a path of this origin only (next-path.ts), else the overview.
  const destination = safeNextPath(query.next);

  if (session.viewer) {
    return (
      <Page title="Signed in">
        <p>
          You are signed in as <strong>{session.viewer.login}</strong>.
        </p>
        <p class="actions">
          <a class="button" href={destination}>
            Continue to the console
          </a>
          <a class="button secondary" href="/logout">
            Sign out
          </a>
        </p>
      </Page>
    );
  }

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await rest('POST', '/login', { user, password });
      await session.reload();
      route(destination, true);
    } catch (err) {
      setError(errorMessage(err));
      setBusy(false);
    }
  };

  return (
    <Page title="Sign in to portcullis">
      {error && <Notice kind="error">{error}</Notice>}
      <form class="card stack" onSubmit={submit}>
        <TextField
          id="signin-user"
          label="Login or email"
          name="username"
          autocomplete="username"
          required
          value={user}
          onValue={setUser}
        />
        <TextField
          id="signin-password"
          label="Password"
          name="password"
          type="password"
          autocomplete="current-password"
          required
          value={password}
          onValue={setPassword}
        />
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      {oauth && (
        <p class="oauth">
          <span>or</span>
          <a class="button secondary" href={`/login/generic_oauth?next=${encodeURIComponent(destination)}`}>
            Sign in with {oauth}
          </a>
        </p>
      )}
    </Page>
  );
}
