/** The account fields these controls read (user.tsx's page passes its user). */
interface Account {
  id: number;
  login: string;
  isDisabled: boolean;
  isServiceAdmin: boolean;
}

/**
 * The controls of a user's account on its page (user.tsx): whether it may sign in (`disableUser`
 * with users:disable, `enableUser` with users:enable, on global.users:id:<id>), lifting the lock
 * that failed passwords put on it (`unlockUser`, users:enable), a new password (`setUserPassword`,
 * users.password:write; its sessions end) and deleting it (`deleteUser`, users:delete). Every one
 * also needs control of the account (people.ts `mayControl`), as on the server.
 */
import { useMutation } from '@urql/preact';
import { useState } from 'preact/hooks';
import { errorMessage } from '../api.js';
import { ConfirmButton } from '../dialogs.js';
import { TextField } from '../fields.js';
import { graphql } from '../graphql.js';
import { Notice } from '../notice.js';
import { useSession } from '../session.js';
import { mayControl } from './people.js';

const DISABLE = graphql(`mutation ConsoleDisableUser($id: Int!) { disableUser(id: $id) { message } }`);
const ENABLE = graphql(`mutation ConsoleEnableUser($id: Int!) { enableUser(id: $id) { message } }`);
const UNLOCK = graphql(`mutation ConsoleUnlockUser($id: Int!) { unlockUser(id: $id) { message } }`);
const PASSWORD = graphql(
  `mutation ConsoleSetPassword($id: Int!, $password: String!) { setUserPassword(id: $id, password: $password) { message } }`,
);
const DELETE = graphql(`mutation ConsoleDeleteUser($id: Int!) { deleteUser(id: $id) { message } }`);

export function AccountControls({ user, onChanged }: { user: Account; onChanged: (message: string, gone?: boolean) => void }) {
  const { access, viewer } = useSession();
  const scope = `global.users:id:${user.id}`;
  const control = mayControl(access, viewer, user);
  const may = (action: string) => control && access.can(action, scope);
  const [, disable] = useMutation(DISABLE);
  const [, enable] = useMutation(ENABLE);
  const [, unlock] = useMutation(UNLOCK);
  const [, remove] = useMutation(DELETE);
  const [error, setError] = useState<string | null>(null);
  const self = viewer?.kind === 'user' && viewer.id === user.id;

  const run = async (send: () => Promise<{ error?: unknown }>, message: string) => {
    setError(null);
    const result = await send();
    if (result.error) setError(errorMessage(result.error));
    else onChanged(message);
  };
  const signIn = may('users:disable') || may('users:enable');
  return (
    <>
      <section aria-labelledby="signin-heading">
        <h2 id="signin-heading">Signing in</h2>
        <p>
          {user.isDisabled ? `${user.login} is disabled: it cannot sign in, and keeps its data.` : `${user.login} may sign in.`}
          {user.isServiceAdmin && ' It is a Service Admin of this server.'}
        </p>
        {signIn && (
          <div class="actions">
            {user.isDisabled && may('users:enable') && (
              <button type="button" onClick={() => void run(() => enable({ id: user.id }), `User “${user.login}” enabled.`)}>
                Enable user
              </button>
            )}
            {!user.isDisabled && !self && may('users:disable') && (
              <ConfirmButton
                class="danger"
                title={`Disable ${user.login}?`}
                question="The user cannot sign in any more and its sessions end at once. Its data, roles and teams stay; enabling it gives them back."
                confirmLabel="Disable user"
                onConfirm={() => disable({ id: user.id })}
                onDone={() => onChanged(`User “${user.login}” disabled.`)}
              >
                Disable user
              </ConfirmButton>
            )}
            {may('users:enable') && (
              <button
                type="button"
                class="secondary"
                onClick={() =>
                  void run(() => unlock({ id: user.id }), `Sign-in lock of “${user.login}” lifted: it may try its password again.`)
                }
              >
                Lift sign-in lock
              </button>
            )}
          </div>
        )}
        {signIn && (
          <p class="hint">
            After too many wrong passwords the server refuses this user's sign-in for a while; lifting the lock ends that wait.
          </p>
        )}
        {error && <Notice kind="error">{error}</Notice>}
      </section>
      {may('users.password:write') && <NewPassword user={user} onChanged={onChanged} />}
      {!self && may('users:delete') && (
        <section aria-labelledby="delete-heading">
          <h2 id="delete-heading">Delete</h2>
          <ConfirmButton
            class="danger"
            title={`Delete ${user.login}?`}
            question="The account is deleted with its memberships, role assignments and sessions, in every organization. This cannot be undone."
            confirmLabel="Delete user"
            onConfirm={() => remove({ id: user.id })}
            onDone={() => onChanged(`User “${user.login}” deleted.`, true)}
          >
            Delete user
          </ConfirmButton>
        </section>
      )}
    </>
  );
}

/** A new password for the user; its sessions end. */
function NewPassword({ user, onChanged }: { user: Account; onChanged: (message: string) => void }) {
  const [, setPassword] = useMutation(PASSWORD);
  const [password, setValue] = useState('');
  const [error, setError] = useState<string | null>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    const result = await setPassword({ id: user.id, password });
    if (result.error) {
      setError(errorMessage(result.error));
      return;
    }
    setValue('');
    setError(null);
    onChanged(`Password of “${user.login}” changed; its sessions ended.`);
  };
  return (
    <section aria-labelledby="password-heading">
      <h2 id="password-heading">Password</h2>
      <form class="card form-grid" onSubmit={submit} aria-label={`New password for ${user.login}`}>
        <TextField
          id="user-password"
          label="New password"
          type="password"
          required
          minLength={4}
          autocomplete="new-password"
          hint="At least 4 characters. The user's sessions end."
          value={password}
          onValue={setValue}
        />
        <div class="field field-end">
          <button type="submit">Set password</button>
        </div>
        {error && <Notice kind="error">{error}</Notice>}
      </form>
    </section>
  );
}
