/**
 * The app's own sign-in page (App Router, a server action in `actions.ts`), which also completes the
 * sign-ins its OpenID Provider hands it (`?interaction=…`): `gatehouse.interactions.details` says
 * which client asks; the action checks the password and finishes the interaction.
 */
import { InteractionError } from '@gatehousejs/core/ui';
import { getAccounts } from '../../lib/accounts';
import { SignInForm } from './sign-in-form';

export const dynamic = 'force-dynamic';

type Props = { searchParams: Promise<{ interaction?: string }> };

export default async function LoginPage({ searchParams }: Props) {
  const { interaction } = await searchParams;
  let notice: string | undefined;
  if (interaction) {
    try {
      // The bare reference: what is asked, to show it (finish checks the browser).
      const asked = await (await getAccounts()).gatehouse.interactions.details(interaction);
      notice = `Sign in to continue to ${asked.client.name}.`;
    } catch (error) {
      if (!(error instanceof InteractionError)) throw error;
      // Also after the action finished it (the page is rendered again): the form then navigates on.
      notice = error.code === 'interaction_finished' ? 'Signed in. Continuing…' : error.message;
    }
  }
  // The form stays in place whatever the notice, so its state (the location to go to) survives the
  // refresh that follows the action's cookie.
  return (
    <main>
      <h1>Sign in</h1>
      <p>{notice ?? ''}</p>
      <SignInForm {...(interaction ? { interaction } : {})} />
    </main>
  );
}
