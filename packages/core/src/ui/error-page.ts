import { escapeHtml } from './escape.js';
import { documentShell } from './layout.js';
import type { ErrorPageModel } from './types.js';

/** The built-in error page. */
export function defaultErrorPage(model: ErrorPageModel): string {
  return documentShell(
    'Something went wrong',
    `<h1>Something went wrong</h1>
<p>${escapeHtml(model.description)}</p>
<p class="muted">Error: <code>${escapeHtml(model.error)}</code></p>`,
  );
}
