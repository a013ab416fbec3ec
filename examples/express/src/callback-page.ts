/**
 * The redirect target of the demo clients (`http://localhost:<port>/callback`): a tiny page that
 * shows what the authorization server sent back (RFC 6749 §4.1.2: `code` and `state`, or `error`).
 */
const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The HTML of the callback page for a request URL's query. */
export function callbackPage(query: URLSearchParams): string {
  const rows = [...query]
    .map(([name, value]) => `<tr><th>${escapeHtml(name)}</th><td><code>${escapeHtml(value)}</code></td></tr>`)
    .join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Gatehouse demo callback</title></head>
<body><h1>Authorization callback</h1>
${rows ? `<table>${rows}</table>` : '<p>No query parameters.</p>'}
</body></html>`;
}
