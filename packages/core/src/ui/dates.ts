import { escapeHtml } from './escape.js';

/** A date as the pages show it: in the page's language, in UTC (the server knows no time zone). */
export function shownDate(epochMs: number, locale: string): string {
  const style = { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' } as const;
  let format: Intl.DateTimeFormat;
  try {
    format = new Intl.DateTimeFormat(locale, style);
  } catch {
    format = new Intl.DateTimeFormat('en', style);
  }
  return `${format.format(epochMs)} UTC`;
}

/** A date in a `<time>` element (machine-readable too); empty for an unknown or invalid one. */
export function timeElement(epochMs: number | undefined, locale: string): string {
  if (epochMs === undefined || !Number.isFinite(epochMs)) return '';
  return `<time datetime="${new Date(epochMs).toISOString()}">${escapeHtml(shownDate(epochMs, locale))}</time>`;
}
