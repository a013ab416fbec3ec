import type { Context } from '../context.js';
import type { Answer } from '../http/reply.js';
import { scopeItem } from './consent-page.js';
import { timeElement } from './dates.js';
import { displayText } from './display-text.js';
import { escapeHtml } from './escape.js';
import { documentShell, hiddenInputs } from './layout.js';
import { fillTemplate } from './messages.js';
import { htmlPage } from './page-response.js';
import { pageLanguage, withSources } from './pages.js';
import type { PageTexts } from './types.js';

/*
 * The connected apps page (`{base}/account/apps`), built-in only (a host renders its own from
 * `gatehouse.connectedApps`): the applications holding access for the signed-in user, each with a
 * revoke form. Its contract (browsers and tests drive it): one `<li>` per application, whose form
 * posts `client_id` and `csrf_token` with a submit button labelled with `appsRevokeButton`
 * ("Revoke access") followed by the application's name (visually hidden, for screen readers).
 */

/** One application as the page shows it. */
export interface ConnectedAppView {
  readonly clientId: string;
  readonly clientName?: string;
  readonly scopes: readonly string[];
  readonly since?: number;
  readonly lastUsedAt: number;
}

/** What the connected apps page shows. */
export interface ConnectedAppsPageModel {
  readonly action: string;
  readonly csrfToken: string;
  readonly apps: readonly ConnectedAppView[];
  readonly username?: string;
  /** The outcome of a revocation just made. */
  readonly notice?:
    | { readonly kind: 'revoked'; readonly client: string }
    | { readonly kind: 'nothing-to-revoke' };
}

const APPS_STYLE = `
main.apps{max-width:560px}
ul.apps{list-style:none;margin:16px 0 0;padding:0}
ul.apps>li{border:1px solid #e4e7eb;border-radius:10px;padding:14px 16px;margin:0 0 12px}
ul.apps h2{font-size:1.05rem;margin:0}
ul.apps p{margin:4px 0}
ul.apps button{margin-top:10px;background:#b91c1c}
ul.apps button:hover{background:#991b1b}
.notice{padding:10px 12px;border-radius:8px;background:#e6f4ea;color:#14532d;margin:12px 0 0}
`;

function appItem(
  app: ConnectedAppView,
  index: number,
  model: ConnectedAppsPageModel,
  ctx: Pick<Context, 'ui'>,
  texts: PageTexts,
  locale: string,
): string {
  const name = displayText(app.clientName ?? app.clientId);
  const headingId = `app-${index}`;
  const described = ctx.ui.scopeDescriptions;
  const scopes =
    app.scopes.length === 0
      ? ''
      : `<p>${escapeHtml(texts.appsAccess)}</p><ul class="scopes">${app.scopes
          .map((scope) => scopeItem(scope, Object.hasOwn(described, scope) ? described[scope] : undefined))
          .join('')}</ul>`;
  const since =
    app.since === undefined
      ? ''
      : `<p class="muted">${fillTemplate(texts.appsSince, { date: timeElement(app.since, locale) }, escapeHtml)}</p>`;
  const used = `<p class="muted">${fillTemplate(texts.appsLastUsed, { date: timeElement(app.lastUsedAt, locale) }, escapeHtml)}</p>`;
  return `<li aria-labelledby="${headingId}">
<h2 id="${headingId}"><bdi>${escapeHtml(name)}</bdi></h2>
<p class="muted"><code>${escapeHtml(app.clientId)}</code></p>
${scopes}${since}${used}
<form method="post" action="${escapeHtml(model.action)}">
${hiddenInputs({ csrf_token: model.csrfToken, client_id: app.clientId })}
<button type="submit">${escapeHtml(texts.appsRevokeButton)}<span class="vh"> — <bdi>${escapeHtml(name)}</bdi></span></button>
</form>
</li>`;
}

/** The connected apps page response, in the browser's language. */
export function connectedAppsPage(
  ctx: Pick<Context, 'ui'>,
  request: Request,
  model: ConnectedAppsPageModel,
  options: { status?: number; headers?: HeadersInit } = {},
): Answer {
  const { context, texts } = pageLanguage(ctx, request);
  const { locale } = context;
  const notice =
    model.notice === undefined
      ? ''
      : `<div class="notice" role="status">${
          model.notice.kind === 'revoked'
            ? fillTemplate(
                texts.appsRevoked,
                { client: `<strong><bdi>${escapeHtml(displayText(model.notice.client))}</bdi></strong>` },
                escapeHtml,
              )
            : escapeHtml(texts.appsNothingToRevoke)
        }</div>`;
  const list =
    model.apps.length === 0
      ? `<p>${escapeHtml(texts.appsNone)}</p>`
      : `<ul class="apps">${model.apps.map((app, i) => appItem(app, i, model, ctx, texts, locale)).join('\n')}</ul>`;
  const who = model.username
    ? `<p class="muted">${fillTemplate(texts.signedInAs, { user: escapeHtml(displayText(model.username)) }, escapeHtml)}</p>`
    : '';
  const html = documentShell(
    texts.appsTitle,
    `<h1>${escapeHtml(texts.appsTitle)}</h1>
<p>${escapeHtml(texts.appsIntro)}</p>
${notice}
${list}
${who}`,
    texts,
    locale,
    { style: APPS_STYLE, mainClass: 'apps' },
  );
  return htmlPage(html, withSources(ctx, options));
}
