import type { Context as OtelContext, TextMapGetter } from '@opentelemetry/api';
import type { OtelApi } from './open-telemetry-api.js';

const HEADERS: TextMapGetter<Headers> = {
  keys: (headers) => [...headers.keys()],
  get: (headers, key) => headers.get(key) ?? undefined,
};

/** W3C Trace Context §3.2.2: version 00, 32 hex trace id, 16 hex parent id, 2 hex flags; all-zero ids invalid. */
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/**
 * The parent context of a request's span: what the host's registered propagator extracts from the
 * request headers, else the request's own W3C `traceparent` (parsed here, so that the trace
 * continues even when the host registered no propagator), else the active context.
 */
export function remoteParent(api: OtelApi, request: Request): OtelContext {
  const active = api.context.active();
  const extracted = api.propagation.extract(active, request.headers, HEADERS);
  if (api.trace.getSpanContext(extracted) !== undefined && extracted !== active) return extracted;
  const header = request.headers.get('traceparent');
  if (!header) return active;
  const match = TRACEPARENT.exec(header.trim());
  if (!match || /^0+$/.test(match[1]!) || /^0+$/.test(match[2]!)) return active;
  const tracestate = request.headers.get('tracestate');
  return api.trace.setSpanContext(active, {
    traceId: match[1]!,
    spanId: match[2]!,
    traceFlags: Number.parseInt(match[3]!, 16) & 1,
    isRemote: true,
    ...(tracestate && api.createTraceState ? { traceState: api.createTraceState(tracestate) } : {}),
  });
}
