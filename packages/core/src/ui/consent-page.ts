import { escapeHtml } from './escape.js';
import { documentShell, hiddenInputs } from './layout.js';
import { fillTemplate } from './messages.js';
import { DEFAULT_PAGE_TEXTS } from './texts.js';
import type { ConsentPageModel, PageContext, PageTexts } from './types.js';

/**
 * One scope of the list: what it allows, in words, when there is a description (the scope string
 * then only in the item's `title`, for the curious); the scope string itself otherwise.
 */
export function scopeItem(scope: string, description: string | undefined): string {
  return description === undefined
    ? `<li><code>${escapeHtml(scope)}</code></li>`
    : `<li title="${escapeHtml(scope)}">${escapeHtml(description)}</li>`;
}

/**
 * What the page says of a client anyone could have created: that its name is its own claim, and
 * for a client ID metadata document the host that published it.
 */
export function selfRegisteredNotice(
  model: { selfRegistered?: boolean; clientHost?: string },
  texts: PageTexts,
): string {
  if (!model.selfRegistered) return '';
  const notice = model.clientHost
    ? fillTemplate(
        texts.selfRegisteredFrom,
        { host: `<strong>${escapeHtml(model.clientHost)}</strong>` },
        escapeHtml,
      )
    : escapeHtml(texts.selfRegistered);
  return `<p class="muted">${notice}</p>\n`;
}

/** The built-in consent page: what the client asks for, and the "Allow" / "Deny" buttons. */
export function defaultConsentPage(model: ConsentPageModel, context?: PageContext): string {
  const texts = model.texts ?? DEFAULT_PAGE_TEXTS;
  const fill = (template: string, values: Record<string, string>) =>
    fillTemplate(template, values, escapeHtml);
  const described = model.scopeDescriptions ?? {};
  const scopes =
    model.scopes.length > 0
      ? `<p>${escapeHtml(texts.asksFor)}</p><ul class="scopes">${model.scopes.map((s) => scopeItem(s, Object.hasOwn(described, s) ? described[s] : undefined)).join('')}</ul>`
      : `<p>${escapeHtml(texts.asksForAccount)}</p>`;
  // RFC 8707: where the token will be usable, so the user knows what the access reaches.
  const resources =
    model.resources && model.resources.length > 0
      ? `<p>${escapeHtml(texts.resourcesAt)}</p><ul class="resources">${model.resources.map((r) => `<li><code>${escapeHtml(r)}</code></li>`).join('')}</ul>`
      : '';
  // RFC 9396 §13: each authorization detail in the words of its type.
  const details =
    model.authorizationDetails && model.authorizationDetails.length > 0
      ? `<p>${escapeHtml(texts.detailsAsked ?? 'In detail:')}</p><ul class="scopes details">${model.authorizationDetails.map((d) => `<li title="${escapeHtml(d.type)}">${escapeHtml(d.description)}</li>`).join('')}</ul>\n`
      : '';
  const destination = model.redirectHost
    ? `<p class="muted">${fill(texts.sentBackTo, { host: `<strong>${escapeHtml(model.redirectHost)}</strong>` })}</p>`
    : '';
  const who = model.username
    ? `<p class="muted">${fill(texts.signedInAs, { user: escapeHtml(model.username) })}</p>`
    : '';
  return documentShell(
    texts.consentTitle,
    `<h1>${escapeHtml(texts.consentTitle)}</h1>
<p>${fill(texts.wantsToAct, { client: `<strong><bdi>${escapeHtml(model.clientName)}</bdi></strong>` })}</p>
${selfRegisteredNotice(model, texts)}${destination}
${scopes}
${details}${resources}
<form method="post" action="${escapeHtml(model.action)}">
${hiddenInputs({ ...model.hiddenFields, csrf_token: model.csrfToken })}
<div class="row">
<button type="submit" name="decision" value="deny" class="secondary">${escapeHtml(texts.denyButton)}</button>
<button type="submit" name="decision" value="allow">${escapeHtml(texts.allowButton)}</button>
</div>
</form>
${who}`,
    texts,
    context?.locale,
  );
}
