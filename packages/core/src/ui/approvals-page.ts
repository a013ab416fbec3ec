import type { Context } from '../context.js';
import type { Answer } from '../http/reply.js';
import { scopeItem } from './consent-page.js';
import { escapeHtml } from './escape.js';
import { documentShell, hiddenInputs } from './layout.js';
import { fillTemplate } from './messages.js';
import { htmlPage } from './page-response.js';
import { pageLanguage, withSources } from './pages.js';
import type { PageTexts } from './types.js';

/*
 * The approval page of backchannel authentication (CIBA), built-in, in the catalog's language
 * (`ui.messages`). Its contract (browsers and tests drive it): one `<section class="request">` per
 * pending request, holding the client's name, the binding message (`.binding-message`), what is
 * asked, and a form with the hidden `request_id` and two submit buttons named `decision`, values
 * `allow` and `deny`, labelled with the `allowButton` / `denyButton` texts ("Allow", "Deny").
 */

/** One request as the page shows it. */
export interface ApprovalItem {
  readonly requestId: string;
  readonly clientName: string;
  readonly bindingMessage?: string;
  readonly scopes: readonly string[];
  readonly resources: readonly string[];
  /** RFC 9396 details, each as lines of text (the type's renderer, or its fields). */
  readonly details?: readonly (readonly string[])[];
}

/** What the approval page shows. */
export interface ApprovalsPageModel {
  readonly action: string;
  readonly csrfToken: string;
  readonly requests: readonly ApprovalItem[];
  readonly scopeDescriptions: Readonly<Record<string, string>>;
  /** What the last decision did. */
  readonly notice?: 'approvalsAllowed' | 'approvalsDenied' | 'approvalsGone';
  readonly username?: string;
}

function requestHtml(item: ApprovalItem, model: ApprovalsPageModel, texts: PageTexts, index: number): string {
  const described = model.scopeDescriptions;
  const client = `<strong>${escapeHtml(item.clientName)}</strong>`;
  const message =
    item.bindingMessage === undefined
      ? ''
      : `<p>${escapeHtml(texts.approvalsBindingMessage)} <strong class="binding-message">${escapeHtml(item.bindingMessage)}</strong></p>`;
  const scopes =
    item.scopes.length > 0
      ? `<p>${escapeHtml(texts.asksFor)}</p><ul class="scopes">${item.scopes.map((s) => scopeItem(s, Object.hasOwn(described, s) ? described[s] : undefined)).join('')}</ul>`
      : `<p>${escapeHtml(texts.asksForAccount)}</p>`;
  const resources =
    item.resources.length > 0
      ? `<p>${escapeHtml(texts.resourcesAt)}</p><ul class="resources">${item.resources.map((r) => `<li><code>${escapeHtml(r)}</code></li>`).join('')}</ul>`
      : '';
  const details =
    item.details && item.details.length > 0
      ? `<ul class="authorization-details">${item.details.map((lines) => `<li>${lines.map(escapeHtml).join('<br>')}</li>`).join('')}</ul>`
      : '';
  const heading = `approval-${index}`;
  return `<section class="request" aria-labelledby="${heading}">
<h2 id="${heading}">${escapeHtml(item.clientName)}</h2>
<p>${fillTemplate(texts.wantsToAct, { client }, escapeHtml)}</p>
${message}
${scopes}
${resources}
${details}
<form method="post" action="${escapeHtml(model.action)}">
${hiddenInputs({ request_id: item.requestId, csrf_token: model.csrfToken })}
<div class="row">
<button type="submit" name="decision" value="deny" class="secondary">${escapeHtml(texts.denyButton)}</button>
<button type="submit" name="decision" value="allow">${escapeHtml(texts.allowButton)}</button>
</div>
</form>
</section>`;
}

function approvalsHtml(model: ApprovalsPageModel, texts: PageTexts, locale: string): string {
  const notice =
    model.notice === undefined
      ? ''
      : `<div class="${model.notice === 'approvalsGone' ? 'alert' : 'notice'}" role="status">${escapeHtml(texts[model.notice])}</div>`;
  const list =
    model.requests.length === 0
      ? `<p class="empty">${escapeHtml(texts.approvalsEmpty)}</p>`
      : `<p>${escapeHtml(texts.approvalsIntro)}</p>\n${model.requests.map((item, i) => requestHtml(item, model, texts, i)).join('\n')}`;
  const who = model.username
    ? `<p class="muted">${fillTemplate(texts.signedInAs, { user: escapeHtml(model.username) }, escapeHtml)}</p>`
    : '';
  return documentShell(
    texts.approvalsTitle,
    `<h1>${escapeHtml(texts.approvalsTitle)}</h1>\n${notice}\n${list}\n${who}`,
    texts,
    locale,
  );
}

/** The approval page, in the browser's language (`Accept-Language`). */
export function approvalsPage(
  ctx: Pick<Context, 'ui'>,
  request: Request,
  model: ApprovalsPageModel,
  options: { status?: number; headers?: HeadersInit } = {},
): Answer {
  const { texts, context } = pageLanguage(ctx, request);
  return htmlPage(approvalsHtml(model, texts, context.locale), withSources(ctx, options));
}
