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
 * The pages of the device verification flow (RFC 8628 §3.3), built-in only: the code form, the
 * confirmation and the result, in the catalog's language (`ui.messages`). Their contract (browsers and tests drive them): the code form has an
 * input named `user_code` and a submit button; the confirmation has two submit buttons named
 * `decision`, values `allow` and `deny`, labelled with the `allowButton` / `denyButton` texts
 * ("Allow", "Deny"); the result page has no form.
 */

/** What the code form shows. */
export interface DeviceCodePageModel {
  readonly action: string;
  readonly csrfToken: string;
  /** The code to prefill (from `verification_uri_complete`, or what was typed before an error). */
  readonly userCode?: string;
  /** Why the code was not taken: a text of the catalog, or a message of its own (a limit's). */
  readonly error?: DeviceCodeError | { readonly message: string };
}

/** The catalog texts the code form shows as its error. */
export type DeviceCodeError =
  | 'deviceCodeInvalid'
  | 'deviceCodeMalformed'
  | 'deviceChooseDecision'
  | 'loginFormExpired';

/** What the confirmation page shows. */
export interface DeviceConfirmPageModel {
  readonly action: string;
  readonly csrfToken: string;
  /** The user code, as shown on the device (`XXXX-XXXX`). */
  readonly userCode: string;
  readonly clientName: string;
  readonly scopes: readonly string[];
  readonly scopeDescriptions: Readonly<Record<string, string>>;
  readonly resources?: readonly string[];
  readonly username?: string;
}

const CODE_STYLE =
  'font:600 1.6rem/1.2 ui-monospace,SFMono-Regular,Menlo,monospace;letter-spacing:.12em;text-align:center;margin:8px 0 16px';

/** A catalog text with its `{…}` placeholders filled in (values escaped here). */
function filled(template: string, values: Readonly<Record<string, string>>): string {
  const escaped = Object.fromEntries(Object.entries(values).map(([k, v]) => [k, escapeHtml(v)]));
  return fillTemplate(template, escaped, escapeHtml);
}

function codeFormHtml(model: DeviceCodePageModel, texts: PageTexts, locale: string): string {
  const buttons = { allow: texts.allowButton, deny: texts.denyButton };
  const message =
    model.error === undefined
      ? undefined
      : typeof model.error === 'string'
        ? filled(texts[model.error], buttons)
        : escapeHtml(model.error.message);
  const error = message ? `<div class="alert" role="alert">${message}</div>` : '';
  return documentShell(
    texts.deviceCodeTitle,
    `<h1>${escapeHtml(texts.deviceCodeTitle)}</h1>
<p>${escapeHtml(texts.deviceCodeIntro)}</p>
${error}
<form method="post" action="${escapeHtml(model.action)}">
${hiddenInputs({ csrf_token: model.csrfToken })}
<label for="user_code">${escapeHtml(texts.deviceCodeLabel)}</label>
<input type="text" id="user_code" name="user_code" value="${escapeHtml(model.userCode ?? '')}" placeholder="XXXX-XXXX" autocomplete="off" autocapitalize="characters" spellcheck="false" maxlength="32" required autofocus>
<button type="submit">${escapeHtml(texts.deviceCodeButton)}</button>
</form>`,
    texts,
    locale,
  );
}

function confirmHtml(model: DeviceConfirmPageModel, texts: PageTexts, locale: string): string {
  const described = model.scopeDescriptions;
  const scopes =
    model.scopes.length > 0
      ? `<p>${escapeHtml(texts.asksFor)}</p><ul class="scopes">${model.scopes.map((s) => scopeItem(s, Object.hasOwn(described, s) ? described[s] : undefined)).join('')}</ul>`
      : `<p>${escapeHtml(texts.asksForAccount)}</p>`;
  const resources =
    model.resources && model.resources.length > 0
      ? `<p>${escapeHtml(texts.resourcesAt)}</p><ul class="resources">${model.resources.map((r) => `<li><code>${escapeHtml(r)}</code></li>`).join('')}</ul>`
      : '';
  const who = model.username
    ? `<p class="muted">${filled(texts.signedInAs, { user: model.username })}</p>`
    : '';
  const client = `<strong>${escapeHtml(model.clientName)}</strong>`;
  return documentShell(
    texts.deviceConfirmTitle,
    `<h1>${escapeHtml(texts.deviceConfirmTitle)}</h1>
<p>${fillTemplate(texts.deviceWantsToAct, { client }, escapeHtml)}</p>
<p>${escapeHtml(texts.deviceCompareCode)}</p>
<p class="user-code" style="${CODE_STYLE}">${escapeHtml(model.userCode)}</p>
<p>${filled(texts.deviceDenyHint, { deny: texts.denyButton })}</p>
${scopes}
${resources}
<form method="post" action="${escapeHtml(model.action)}">
${hiddenInputs({ user_code: model.userCode, csrf_token: model.csrfToken })}
<div class="row">
<button type="submit" name="decision" value="deny" class="secondary">${escapeHtml(texts.denyButton)}</button>
<button type="submit" name="decision" value="allow">${escapeHtml(texts.allowButton)}</button>
</div>
</form>
${who}`,
    texts,
    locale,
  );
}

function doneHtml(approved: boolean, texts: PageTexts, locale: string): string {
  const title = approved ? texts.deviceApprovedTitle : texts.deviceDeniedTitle;
  const body = approved ? texts.deviceApprovedText : texts.deviceDeniedText;
  return documentShell(title, `<h1>${escapeHtml(title)}</h1>\n<p>${escapeHtml(body)}</p>`, texts, locale);
}

/** The code form (`verification_uri`), in the browser's language (`Accept-Language`). */
export function deviceCodePage(
  ctx: Pick<Context, 'ui'>,
  request: Request,
  model: DeviceCodePageModel,
  options: { status?: number; headers?: HeadersInit } = {},
): Answer {
  const { texts, context } = pageLanguage(ctx, request);
  return htmlPage(codeFormHtml(model, texts, context.locale), withSources(ctx, options));
}

/** The confirmation page: the client, what it asks for, the code to compare, Allow and Deny. */
export function deviceConfirmPage(
  ctx: Pick<Context, 'ui'>,
  request: Request,
  model: DeviceConfirmPageModel,
  options: { headers?: HeadersInit } = {},
): Answer {
  const { texts, context } = pageLanguage(ctx, request);
  return htmlPage(confirmHtml(model, texts, context.locale), withSources(ctx, options));
}

/** The page after the decision: no form. */
export function deviceDonePage(ctx: Pick<Context, 'ui'>, request: Request, approved: boolean): Answer {
  const { texts, context } = pageLanguage(ctx, request);
  return htmlPage(doneHtml(approved, texts, context.locale), withSources(ctx));
}
