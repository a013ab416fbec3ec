'use client';
import { useActionState, useEffect } from 'react';
import { type SignInState, signIn } from './actions';

/** The sign-in form: a server action; once it answers a location, a full navigation there. */
export function SignInForm({ interaction }: { interaction?: string }) {
  const [state, action, pending] = useActionState<SignInState, FormData>(signIn, {});
  useEffect(() => {
    if (state.location) window.location.assign(state.location);
  }, [state.location]);
  return (
    <form action={action}>
      {state.error ? <p role="alert">{state.error}</p> : null}
      <input type="hidden" name="interaction" value={interaction ?? ''} />
      <label>
        Email <input type="email" name="email" autoComplete="username" required />
      </label>
      <label>
        Password <input type="password" name="password" autoComplete="current-password" required />
      </label>
      <button type="submit" disabled={pending}>
        Sign in
      </button>
    </form>
  );
}
