import { errorExplanation } from './error-texts.js';
import { escapeHtml } from './escape.js';
import { documentShell } from './layout.js';
import { DEFAULT_PAGE_TEXTS } from './texts.js';
import type { ErrorPageModel } from './types.js';

/**
 * The built-in error page: what the error means in plain words, what went wrong in this request
 * (when it says more than that), and the error code to quote to support.
 */
export function defaultErrorPage(model: ErrorPageModel): string {
  const texts = model.texts ?? DEFAULT_PAGE_TEXTS;
  const explanation = model.explanation ?? errorExplanation(model.error);
  const details =
    model.description && model.description !== explanation ? `<p>${escapeHtml(model.description)}</p>\n` : '';
  return documentShell(
    texts.errorTitle,
    `<h1>${escapeHtml(texts.errorTitle)}</h1>
<p>${escapeHtml(explanation)}</p>
${details}<p class="muted">Error code: <code>${escapeHtml(model.error)}</code></p>`,
    texts,
  );
}
