/*
 * The human output of `gatehouse admin`: aligned text tables and `name: value` lines. Times the API
 * gives as epoch milliseconds (or seconds) are shown in ISO 8601 UTC; everything else as text.
 */

/** A value as a table cell. */
export function cell(value: unknown, time = false): string {
  if (value === undefined || value === null) return '-';
  if (time && typeof value === 'number' && Number.isFinite(value))
    return new Date(value > 1e11 ? value : value * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
  if (Array.isArray(value)) return value.length === 0 ? '-' : value.map((v) => cell(v)).join(',');
  if (typeof value === 'object') return JSON.stringify(value);
  // One line per row: control characters (a newline in a self-chosen client name) are shown escaped.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: escaping control characters is the point.
  const controls = /[\u0000-\u001f\u007f]/g;
  return String(value).replace(controls, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/** A column: its header and how a row's cell is read. */
export interface Column {
  readonly header: string;
  readonly value: (row: Record<string, unknown>) => unknown;
  readonly time?: boolean;
}

/** A column of the row member `name`. */
export function column(name: string, options: { header?: string; time?: boolean } = {}): Column {
  return {
    header: options.header ?? name,
    value: (row) => row[name],
    ...(options.time ? { time: true } : {}),
  };
}

/** `rows` as an aligned table with a header line; `empty` when there are none. */
export function table(rows: readonly unknown[], columns: readonly Column[], empty = '(none)'): string {
  if (rows.length === 0) return `${empty}\n`;
  const cells = rows.map((row) =>
    columns.map((c) => cell(c.value((row ?? {}) as Record<string, unknown>), c.time)),
  );
  const widths = columns.map((c, i) => Math.max(c.header.length, ...cells.map((r) => r[i]!.length)));
  const line = (values: readonly string[]) =>
    values
      .map((v, i) => (i === values.length - 1 ? v : v.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return `${[line(columns.map((c) => c.header.toUpperCase())), ...cells.map(line)].join('\n')}\n`;
}

/** `name: value` lines. */
export function lines(entries: readonly (readonly [string, unknown])[]): string {
  return entries.map(([name, value]) => `${name}: ${cell(value)}`).join('\n') + '\n';
}
