import { escapeHtml } from './escape.js';

/*
 * The operations console's pictures, as inline SVG (no script, no external asset: the pages' CSP
 * holds): stacked bars of counters per minute, and the keys' timeline. Each is an `img` whose
 * accessible name is its title and whose description says in words what it shows (WCAG 1.1.1);
 * the tables beside them hold the same figures.
 */

/** One series of a chart: its name and its value per bucket, oldest first. */
export interface ChartSeries {
  readonly name: string;
  readonly values: readonly number[];
}

/** The colours of the series, in order (distinguishable, with enough contrast on white). */
const PALETTE = ['#2563eb', '#16a34a', '#d97706', '#9333ea', '#dc2626', '#0891b2', '#4b5563', '#be185d'];

/** The colour of the series at `index`. */
export function seriesColour(index: number): string {
  return PALETTE[index % PALETTE.length]!;
}

const WIDTH = 640;
const HEIGHT = 180;
const LEFT = 40;
const BOTTOM = 22;
const TOP = 8;

/**
 * A stacked bar chart of `series` (one bar per bucket, the oldest at the left), titled `title`
 * and described by `description`; then its legend with each series' total.
 */
export function stackedBarChart(options: {
  readonly id: string;
  readonly title: string;
  readonly description: string;
  readonly series: readonly ChartSeries[];
  /** The labels under the first, middle and last bar (e.g. "−60 min", "−30 min", "now"). */
  readonly axis: readonly [string, string, string];
}): string {
  const { id, series } = options;
  const buckets = Math.max(1, ...series.map((s) => s.values.length));
  const totals = Array.from({ length: buckets }, (_, i) =>
    series.reduce((sum, s) => sum + positive(s.values[i]), 0),
  );
  const max = Math.max(1, ...totals);
  const plotWidth = WIDTH - LEFT - 4;
  const plotHeight = HEIGHT - TOP - BOTTOM;
  const step = plotWidth / buckets;
  const bars: string[] = [];
  for (let i = 0; i < buckets; i++) {
    let y = TOP + plotHeight;
    series.forEach((s, index) => {
      const value = positive(s.values[i]);
      if (value === 0) return;
      const height = (value / max) * plotHeight;
      y -= height;
      bars.push(
        `<rect x="${(LEFT + i * step + 0.5).toFixed(1)}" y="${y.toFixed(1)}" width="${Math.max(1, step - 1).toFixed(1)}" height="${height.toFixed(1)}" fill="${seriesColour(index)}"></rect>`,
      );
    });
  }
  const [first, middle, last] = options.axis;
  const baseline = TOP + plotHeight;
  const svg = `<svg class="chart" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-labelledby="${id}-title ${id}-desc" xmlns="http://www.w3.org/2000/svg">
<title id="${id}-title">${escapeHtml(options.title)}</title>
<desc id="${id}-desc">${escapeHtml(options.description)}</desc>
<line x1="${LEFT}" y1="${baseline}" x2="${WIDTH - 4}" y2="${baseline}" stroke="#9aa5b1"></line>
<line x1="${LEFT}" y1="${TOP}" x2="${LEFT}" y2="${baseline}" stroke="#9aa5b1"></line>
<text x="${LEFT - 6}" y="${TOP + 10}" text-anchor="end" font-size="11" fill="#52606d">${max}</text>
<text x="${LEFT - 6}" y="${baseline}" text-anchor="end" font-size="11" fill="#52606d">0</text>
${bars.join('\n')}
<text x="${LEFT}" y="${HEIGHT - 6}" font-size="11" fill="#52606d">${escapeHtml(first)}</text>
<text x="${LEFT + plotWidth / 2}" y="${HEIGHT - 6}" text-anchor="middle" font-size="11" fill="#52606d">${escapeHtml(middle)}</text>
<text x="${WIDTH - 4}" y="${HEIGHT - 6}" text-anchor="end" font-size="11" fill="#52606d">${escapeHtml(last)}</text>
</svg>`;
  const legend = series
    .map(
      (s, index) =>
        `<li><svg width="12" height="12" aria-hidden="true" focusable="false"><rect width="12" height="12" fill="${seriesColour(index)}"></rect></svg> ${escapeHtml(s.name)}: ${seriesTotal(s)}</li>`,
    )
    .join('');
  return `${svg}\n<ul class="legend">${legend}</ul>`;
}

/** The sum of a series. */
export function seriesTotal(series: ChartSeries): number {
  return series.values.reduce((sum: number, value) => sum + positive(value), 0);
}

function positive(value: number | undefined): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
}

/** One key on the timeline. */
export interface TimelineKey {
  readonly kid: string;
  /** `next`, `signing`, `retired` or `revoked`. */
  readonly state: string;
  /** Its state's label, in the page's language. */
  readonly stateLabel: string;
  readonly since?: number;
  readonly until?: number;
}

const STATE_COLOURS: Readonly<Record<string, string>> = {
  next: '#60a5fa',
  signing: '#16a34a',
  retired: '#9ca3af',
  revoked: '#dc2626',
};

/**
 * The keys' timeline: one row per key, a bar from when it entered its state to when it leaves it
 * (or now, when open-ended), coloured by state, with a line at `now`.
 */
export function keyTimeline(options: {
  readonly id: string;
  readonly title: string;
  readonly description: string;
  readonly keys: readonly TimelineKey[];
  readonly now: number;
  /** The label of the line at `now`. */
  readonly nowLabel: string;
}): string {
  const { id, keys, now } = options;
  const times = keys.flatMap((k) => [k.since, k.until]).filter((t): t is number => Number.isFinite(t));
  const start = Math.min(now, ...times);
  const end = Math.max(now, ...times);
  const span = Math.max(60_000, end - start);
  const from = start - span * 0.05;
  const to = end + span * 0.05;
  const label = 190;
  const row = 24;
  const height = Math.max(1, keys.length) * row + 24;
  const x = (t: number) => label + ((t - from) / (to - from)) * (WIDTH - label - 8);
  const rows = keys
    .map((key, i) => {
      const y = 8 + i * row;
      const left = x(key.since ?? from);
      const right = x(key.until ?? now);
      const colour = STATE_COLOURS[key.state] ?? '#4b5563';
      const name = key.kid.length > 18 ? `${key.kid.slice(0, 17)}…` : key.kid;
      return `<text x="4" y="${y + 13}" font-size="11" fill="#1f2933">${escapeHtml(name)} · ${escapeHtml(key.stateLabel)}</text>
<rect x="${left.toFixed(1)}" y="${y + 2}" width="${Math.max(2, right - left).toFixed(1)}" height="14" rx="3" fill="${colour}"></rect>`;
    })
    .join('\n');
  const nowX = x(now).toFixed(1);
  return `<svg class="chart" viewBox="0 0 ${WIDTH} ${height}" role="img" aria-labelledby="${id}-title ${id}-desc" xmlns="http://www.w3.org/2000/svg">
<title id="${id}-title">${escapeHtml(options.title)}</title>
<desc id="${id}-desc">${escapeHtml(options.description)}</desc>
${rows}
<line x1="${nowX}" y1="4" x2="${nowX}" y2="${height - 16}" stroke="#1f2933" stroke-dasharray="3 3"></line>
<text x="${nowX}" y="${height - 4}" text-anchor="middle" font-size="11" fill="#1f2933">${escapeHtml(options.nowLabel)}</text>
</svg>`;
}
