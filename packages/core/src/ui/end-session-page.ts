import { escapeHtml } from './escape.js';
import { documentShell, hiddenInputs } from './layout.js';
import type { EndSessionPageModel } from './types.js';

/**
 * The built-in end-session page (RP-Initiated Logout 1.0 §2): "sign out of this site?" with the
 * relying party's name, or the signed-out notice. The form posts back the logout request with the
 * CSRF token; closing the page keeps the session.
 */
export function defaultEndSessionPage(model: EndSessionPageModel): string {
  if (model.state === 'signed-out') {
    return documentShell(
      'Signed out',
      '<h1>Signed out</h1>\n<p>You are signed out. You can close this window.</p>',
      model.texts,
    );
  }
  const from = model.clientName
    ? `<p><strong><bdi>${escapeHtml(model.clientName)}</bdi></strong> asks to sign you out.</p>`
    : '<p>A site asks to sign you out.</p>';
  const who = model.username ? `<p class="muted">Signed in as ${escapeHtml(model.username)}.</p>` : '';
  return documentShell(
    'Sign out?',
    `<h1>Sign out?</h1>
${from}
<form method="post" action="${escapeHtml(model.action)}">
${hiddenInputs({ ...model.hiddenFields, csrf_token: model.csrfToken })}
<button type="submit">Sign out</button>
</form>
${who}`,
    model.texts,
  );
}
