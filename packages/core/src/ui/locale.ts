/**
 * The language of a page: the first of the request's `ui_locales` (OpenID Connect Core §3.1.2.1),
 * then of its `Accept-Language` (RFC 9110 §12.5.4, by quality), that the catalog has, matched
 * exactly or by primary language (`fr-CA` → `fr`); else the default. Bounded: at most 256
 * characters of the header and 16 of its entries are read.
 */
export function resolveLocale(
  available: ReadonlySet<string>,
  fallback: string,
  uiLocales: readonly string[],
  acceptLanguage: string | null,
): string {
  for (const tag of [...uiLocales.slice(0, 16), ...acceptedLanguages(acceptLanguage)]) {
    const match = matchLocale(available, tag);
    if (match !== undefined) return match;
  }
  return fallback;
}

function matchLocale(available: ReadonlySet<string>, tag: string): string | undefined {
  const lower = tag.toLowerCase();
  if (available.has(lower)) return lower;
  const primary = lower.split('-')[0]!;
  return available.has(primary) ? primary : undefined;
}

/** The languages of an `Accept-Language` header, best first (`*` and `q=0` left out). */
function acceptedLanguages(header: string | null): string[] {
  if (header === null) return [];
  const entries: { tag: string; q: number; index: number }[] = [];
  for (const [index, part] of header.slice(0, 256).split(',').slice(0, 16).entries()) {
    const [range, ...params] = part.trim().split(';');
    const tag = range?.trim() ?? '';
    if (!/^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*$/.test(tag)) continue;
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const q = qParam === undefined ? 1 : Number(qParam.slice(2));
    if (!Number.isFinite(q) || q <= 0) continue;
    entries.push({ tag, q, index });
  }
  return entries.sort((a, b) => b.q - a.q || a.index - b.index).map((e) => e.tag);
}
