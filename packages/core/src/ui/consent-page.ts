import { escapeHtml } from './escape.js';
import { documentShell, hiddenInputs } from './layout.js';
import type { ConsentPageModel } from './types.js';

/** One scope of the list: what it reveals when that is known, its name in any case. */
function scopeItem(scope: string, description: string | undefined): string {
  const name = `<code>${escapeHtml(scope)}</code>`;
  return description === undefined ? `<li>${name}</li>` : `<li>${escapeHtml(description)} (${name})</li>`;
}

/** The built-in consent page: what the client asks for, and the "Allow" / "Deny" buttons. */
export function defaultConsentPage(model: ConsentPageModel): string {
  const scopes =
    model.scopes.length > 0
      ? `<p>It asks for:</p><ul class="scopes">${model.scopes.map((s) => scopeItem(s, model.scopeDescriptions?.[s])).join('')}</ul>`
      : '<p>It asks for access to your account.</p>';
  const destination = model.redirectHost
    ? `<p class="muted">You will be sent back to <strong>${escapeHtml(model.redirectHost)}</strong>.</p>`
    : '';
  const who = model.username ? `<p class="muted">Signed in as ${escapeHtml(model.username)}.</p>` : '';
  return documentShell(
    'Allow access?',
    `<h1>Allow access?</h1>
<p><strong>${escapeHtml(model.clientName)}</strong> wants to act on your behalf.</p>
${destination}
${scopes}
<form method="post" action="${escapeHtml(model.action)}">
${hiddenInputs({ ...model.hiddenFields, csrf_token: model.csrfToken })}
<div class="row">
<button type="submit" name="decision" value="deny" class="secondary">Deny</button>
<button type="submit" name="decision" value="allow">Allow</button>
</div>
</form>
${who}`,
  );
}
