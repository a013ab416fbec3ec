import { escapeHtml } from './escape.js';
import type { PageTexts } from './types.js';

/**
 * The CSS of the built-in pages (inline in their `<style>`): system fonts, a centred card (`main`),
 * labels above their inputs, full-width buttons (`.row` side by side, `.secondary` for the lesser
 * choice), `.alert`, `ul.scopes`, `.muted`, readable on a phone. A host's own pages (its sign-in
 * and consent, beside Gatehouse's) use it to look the same: `<style>${BUILT_IN_STYLESHEET}</style>`
 * and the content in a `<main>` (a `style-src 'unsafe-inline'` CSP, as the built-in pages send).
 */
export const BUILT_IN_STYLESHEET = `
*,*::before,*::after{box-sizing:border-box}
body{margin:0;min-height:100vh;display:flex;align-items:center;justify-content:center;padding:16px;
font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1f2933;background:#eef1f5}
main{width:100%;max-width:380px;background:#fff;border-radius:12px;padding:28px 24px;
box-shadow:0 1px 3px rgba(0,0,0,.08),0 8px 24px rgba(0,0,0,.06)}
h1{font-size:1.35rem;margin:0 0 4px}
p{margin:0 0 16px;color:#52606d}
label{display:block;font-weight:600;font-size:.9rem;margin:14px 0 6px}
input[type=text],input[type=password],input[type=email]{width:100%;padding:10px 12px;font:inherit;border:1px solid #cbd2d9;border-radius:8px}
input:focus,button:focus{outline:3px solid #9ec5fe;outline-offset:1px}
button{width:100%;margin-top:20px;padding:11px;font:inherit;font-weight:600;border:0;border-radius:8px;
background:#2563eb;color:#fff;cursor:pointer}
button:hover{background:#1d4ed8}
button.secondary{background:#e4e7eb;color:#1f2933}
button.secondary:hover{background:#cbd2d9}
.row{display:flex;gap:12px}.row button{flex:1}
.alert{padding:10px 12px;border-radius:8px;background:#fdecea;color:#8a1c1c;margin:12px 0 0}
ul.scopes{margin:0 0 8px;padding-left:20px}
code{font-size:.9em;background:#f0f4f8;padding:1px 4px;border-radius:4px}
.muted{font-size:.85rem;color:#7b8794;margin-top:16px}
.brand{display:flex;align-items:center;gap:10px;margin:0 0 18px;font-weight:600;color:#1f2933}
.brand img{max-height:40px;max-width:160px}
.vh{position:absolute;width:1px;height:1px;margin:-1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
`;

/** The logo and product name above a page's content, when the `ui` options give them. */
function brand(texts: PageTexts | undefined): string {
  if (!texts?.logoUrl && !texts?.productName) return '';
  const logo = texts.logoUrl
    ? `<img src="${escapeHtml(texts.logoUrl)}" alt="${escapeHtml(texts.productName ?? '')}">`
    : '';
  // With a logo the name is its alt text; shown as text too only when there is no logo.
  const name = texts.productName && !texts.logoUrl ? `<span>${escapeHtml(texts.productName)}</span>` : '';
  return `<header class="brand">${logo}${name}</header>\n`;
}

/** Options of {@link documentShell} for pages wider than a card (the operations console). */
export interface ShellOptions {
  /** CSS added after the built-in stylesheet. */
  readonly style?: string;
  /** The `class` of `<main>`. */
  readonly mainClass?: string;
}

/**
 * A complete HTML document around `body` (already escaped HTML), with the product's logo and name
 * from `texts` (and the product name in the title).
 */
export function documentShell(
  title: string,
  body: string,
  texts?: PageTexts,
  locale = 'en',
  options: ShellOptions = {},
): string {
  const fullTitle = texts?.productName ? `${title} · ${texts.productName}` : title;
  return `<!doctype html>
<html lang="${escapeHtml(locale)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${escapeHtml(fullTitle)}</title>
<style>${BUILT_IN_STYLESHEET}${options.style ?? ''}</style>
</head>
<body>
<main${options.mainClass ? ` class="${escapeHtml(options.mainClass)}"` : ''}>
${brand(texts)}${body}
</main>
</body>
</html>
`;
}

/** Hidden inputs for `fields` (names and values escaped). */
export function hiddenInputs(fields: Readonly<Record<string, string>>): string {
  return Object.entries(fields)
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join('\n');
}
