import { selfRegisteredNotice } from './consent-page.js';
import { escapeHtml } from './escape.js';
import { documentShell, hiddenInputs } from './layout.js';
import { fillTemplate } from './messages.js';
import { DEFAULT_PAGE_TEXTS } from './texts.js';
import type { LoginPageModel, PageContext } from './types.js';

/** The built-in login page: a plain form (`username`, `password`, hidden `csrf_token`), no script. */
export function defaultLoginPage(model: LoginPageModel, context?: PageContext): string {
  const texts = model.texts ?? DEFAULT_PAGE_TEXTS;
  const to = model.clientName
    ? `<p>${fillTemplate(texts.continueTo, { client: `<strong><bdi>${escapeHtml(model.clientName)}</bdi></strong>` }, escapeHtml)}</p>\n${selfRegisteredNotice(model, texts)}`
    : '<p>&nbsp;</p>';
  const error = model.error ? `<div class="alert" role="alert">${escapeHtml(model.error)}</div>` : '';
  return documentShell(
    texts.signInTitle,
    `<h1>${escapeHtml(texts.signInTitle)}</h1>
${to}
${error}
<form method="post" action="${escapeHtml(model.action)}">
${hiddenInputs({ ...model.hiddenFields, csrf_token: model.csrfToken })}
<label for="username">${escapeHtml(texts.usernameLabel)}</label>
<input type="text" id="username" name="username" value="${escapeHtml(model.username ?? '')}" autocomplete="username" autocapitalize="none" spellcheck="false" required${model.username ? '' : ' autofocus'}>
<label for="password">${escapeHtml(texts.passwordLabel)}</label>
<input type="password" id="password" name="password" autocomplete="current-password" required${model.username ? ' autofocus' : ''}>
<button type="submit">${escapeHtml(texts.signInButton)}</button>
</form>`,
    texts,
    context?.locale,
  );
}
