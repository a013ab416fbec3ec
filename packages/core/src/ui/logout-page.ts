import { escapeHtml } from './escape.js';
import { documentShell, hiddenInputs } from './layout.js';
import type { LogoutPageModel } from './types.js';

/** The built-in logout page: a confirmation form, or the signed-out notice. */
export function defaultLogoutPage(model: LogoutPageModel): string {
  if (model.state === 'signed-out') {
    return documentShell('Signed out', '<h1>Signed out</h1>\n<p>You are not signed in.</p>', model.texts);
  }
  const who = model.username ? ` as <strong>${escapeHtml(model.username)}</strong>` : '';
  return documentShell(
    'Sign out?',
    `<h1>Sign out?</h1>
<p>You are signed in${who}.</p>
<form method="post" action="${escapeHtml(model.action)}">
${hiddenInputs({ csrf_token: model.csrfToken })}
<button type="submit">Sign out</button>
</form>`,
    model.texts,
  );
}
