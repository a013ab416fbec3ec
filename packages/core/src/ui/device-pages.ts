import type { Context } from '../context.js';
import type { Answer } from '../http/reply.js';
import { scopeItem } from './consent-page.js';
import { escapeHtml } from './escape.js';
import { documentShell, hiddenInputs } from './layout.js';
import { htmlPage } from './page-response.js';
import { withImages } from './pages.js';
import type { PageTexts } from './types.js';

/*
 * The pages of the device verification flow (RFC 8628 §3.3), built-in only: the code form, the
 * confirmation and the result. Their contract (browsers and tests drive them): the code form has an
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
  readonly error?: string;
}

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

function codeFormHtml(model: DeviceCodePageModel, texts: PageTexts): string {
  const error = model.error ? `<div class="alert" role="alert">${escapeHtml(model.error)}</div>` : '';
  return documentShell(
    'Connect a device',
    `<h1>Connect a device</h1>
<p>Enter the code shown on your device.</p>
${error}
<form method="post" action="${escapeHtml(model.action)}">
${hiddenInputs({ csrf_token: model.csrfToken })}
<label for="user_code">Code</label>
<input type="text" id="user_code" name="user_code" value="${escapeHtml(model.userCode ?? '')}" placeholder="XXXX-XXXX" autocomplete="off" autocapitalize="characters" spellcheck="false" maxlength="32" required autofocus>
<button type="submit">Continue</button>
</form>`,
    texts,
  );
}

function confirmHtml(model: DeviceConfirmPageModel, texts: PageTexts): string {
  const described = model.scopeDescriptions;
  const scopes =
    model.scopes.length > 0
      ? `<p>It asks for:</p><ul class="scopes">${model.scopes.map((s) => scopeItem(s, Object.hasOwn(described, s) ? described[s] : undefined)).join('')}</ul>`
      : '<p>It asks for access to your account.</p>';
  const resources =
    model.resources && model.resources.length > 0
      ? `<p>At:</p><ul class="resources">${model.resources.map((r) => `<li><code>${escapeHtml(r)}</code></li>`).join('')}</ul>`
      : '';
  const who = model.username ? `<p class="muted">Signed in as ${escapeHtml(model.username)}.</p>` : '';
  return documentShell(
    'Connect a device?',
    `<h1>Connect a device?</h1>
<p><strong>${escapeHtml(model.clientName)}</strong> on a device wants to act on your behalf.</p>
<p>Check that this is the code shown on your device:</p>
<p class="user-code" style="${CODE_STYLE}">${escapeHtml(model.userCode)}</p>
<p>If it is not, or you did not start this sign-in yourself, choose ${escapeHtml(texts.denyButton)}.</p>
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
  );
}

function doneHtml(approved: boolean, texts: PageTexts): string {
  const title = approved ? 'Device connected' : 'Access denied';
  const body = approved
    ? 'The device is signed in. You can close this page and return to your device.'
    : 'The device was not given access. You can close this page.';
  return documentShell(title, `<h1>${escapeHtml(title)}</h1>\n<p>${escapeHtml(body)}</p>`, texts);
}

/** The code form (`verification_uri`). */
export function deviceCodePage(
  ctx: Context,
  model: DeviceCodePageModel,
  options: { status?: number; headers?: HeadersInit } = {},
): Answer {
  return htmlPage(codeFormHtml(model, ctx.ui.texts), withImages(ctx, options));
}

/** The confirmation page: the client, what it asks for, the code to compare, Allow and Deny. */
export function deviceConfirmPage(
  ctx: Context,
  model: DeviceConfirmPageModel,
  options: { headers?: HeadersInit } = {},
): Answer {
  return htmlPage(confirmHtml(model, ctx.ui.texts), withImages(ctx, options));
}

/** The page after the decision: no form. */
export function deviceDonePage(ctx: Context, approved: boolean): Answer {
  return htmlPage(doneHtml(approved, ctx.ui.texts), withImages(ctx));
}
