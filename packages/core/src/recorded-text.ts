/**
 * Longest value, in UTF-16 code units (JavaScript's `string.length`), that Gatehouse writes for one
 * attribute a request chose (a presented `client_id`, a username as typed, …) into a span, a metric,
 * an audit record, an event or a log line: a request of the body limit's size must not become a
 * record of that size, once per request.
 */
export const RECORDED_TEXT_LIMIT = 256;

/**
 * `value` as telemetry, audit records, events and logs record it: unchanged within `limit`, else cut
 * so that, with a marker saying it was cut and how long it was, it is exactly `limit` long or
 * shorter. Applying it twice changes nothing, so every layer may apply it.
 */
export function recordedText(value: string, limit = RECORDED_TEXT_LIMIT): string {
  if (value.length <= limit) return value;
  const marker = `…[cut from ${value.length} characters]`;
  let end = limit - marker.length;
  // Never half a surrogate pair: a lone surrogate is not text, and an exporter encoding UTF-8 would
  // replace or refuse it.
  const last = value.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return value.slice(0, end) + marker;
}
