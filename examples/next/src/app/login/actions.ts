'use server';
import { InteractionError } from '@gatehousejs/core/ui';
/**
 * The sign-in server action: checks the password, starts the app's session and, when the sign-in
 * was asked by the OpenID Provider (`interaction`), finishes the interaction. It answers where to go
 * next rather than calling `redirect()`: the resume URL is a route handler, which the App Router's
 * client navigation cannot render, so the form sends the browser there itself (a full navigation).
 */
import { cookies } from 'next/headers';
import { ACCOUNTS, getAccounts } from '../../lib/accounts';

export type SignInState = { readonly location?: string; readonly error?: string };

export async function signIn(_previous: SignInState, form: FormData): Promise<SignInState> {
  const accounts = await getAccounts();
  const interaction = String(form.get('interaction') ?? '');
  const sub = await accounts.checkPassword(
    String(form.get('email') ?? ''),
    String(form.get('password') ?? ''),
  );
  if (sub === null) return { error: 'The email or password is incorrect.' };
  const authTime = Date.now();
  const jar = await cookies();
  jar.set(ACCOUNTS.sessionCookie, accounts.startSession(sub, authTime), {
    httpOnly: true,
    sameSite: 'lax',
    path: '/',
  });
  if (interaction === '') return { location: '/' };
  // finish() checks the browser-binding cookie Gatehouse set: hand it this request's cookies.
  const request = new Request(`http://localhost/login?interaction=${encodeURIComponent(interaction)}`, {
    headers: { cookie: jar.toString() },
  });
  try {
    const { location } = await accounts.gatehouse.interactions.finish(request, {
      login: { sub, authTime, amr: ['pwd'] },
    });
    return { location };
  } catch (error) {
    if (error instanceof InteractionError) return { error: error.message };
    throw error;
  }
}
