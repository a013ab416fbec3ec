import type {
  Attributes,
  Counter,
  Histogram,
  MeterProvider,
  Context as OtelContext,
  Span,
  Tracer,
  TracerProvider,
} from '@opentelemetry/api';
import { ERROR_TABLE, ProtocolError } from '../errors.js';
import type { InstanceTelemetry, RequestObservation } from '../http/endpoint-telemetry.js';
import { refusalOf } from '../http/refusal.js';
import { type Answer, isReply } from '../http/reply.js';
import { recordedText } from '../recorded-text.js';
import type { OtelApi } from './open-telemetry-api.js';
import { remoteParent } from './trace-context.js';

/** The instrumentation scope of every span and instrument. */
export const SCOPE = '@gatehousejs/core';

// Numeric values of the API's enums (SpanKind.SERVER, SpanKind.CLIENT, SpanStatusCode.ERROR), so
// that only types are imported from the optional package.
const SERVER = 1;
const CLIENT = 2;
const ERROR = 2;

interface Instruments {
  readonly requests: Counter;
  readonly duration: Histogram;
  readonly tokens: Counter;
  readonly refusals: Counter;
  readonly storage: Histogram;
  readonly revocationLag: Histogram;
}

/**
 * OpenTelemetry for one instance, through the host's `@opentelemetry/api` only. Providers are
 * looked up per request (a host may register its SDK after creating instances); with none
 * registered, a request costs two global lookups and creates nothing.
 */
export class Telemetry implements InstanceTelemetry {
  #tracerProvider: TracerProvider | undefined;
  #tracer: Tracer | undefined;
  #meterProvider: MeterProvider | undefined;
  #instruments: Instruments | undefined;

  constructor(
    readonly instance: string,
    readonly api: OtelApi,
  ) {}

  /** The tracer of the registered provider, or `undefined` when none is registered. */
  tracer(): Tracer | undefined {
    const api = this.api;
    const proxy = api.trace.getTracerProvider() as TracerProvider & {
      getDelegate?: () => TracerProvider;
      getDelegateTracer?: (name: string) => Tracer | undefined;
    };
    const provider = proxy.getDelegate ? proxy.getDelegate() : proxy;
    if (provider !== this.#tracerProvider) {
      this.#tracerProvider = provider;
      this.#tracer = proxy.getDelegateTracer ? proxy.getDelegateTracer(SCOPE) : proxy.getTracer(SCOPE);
    }
    return this.#tracer;
  }

  /** The instruments of the registered meter provider, or `undefined` when none is registered. */
  instruments(): Instruments | undefined {
    const api = this.api;
    const provider = api.metrics.getMeterProvider();
    if (provider !== this.#meterProvider) {
      this.#meterProvider = provider;
      const meter = provider.getMeter(SCOPE);
      this.#instruments =
        meter === api.createNoopMeter()
          ? undefined
          : {
              requests: meter.createCounter('gatehouse.requests', {
                description: 'Requests answered, by route, method, status and outcome.',
              }),
              duration: meter.createHistogram('gatehouse.request.duration', {
                description: 'Time to answer a request.',
                unit: 's',
              }),
              tokens: meter.createCounter('gatehouse.tokens.issued', {
                description: 'Tokens issued, by grant type.',
              }),
              refusals: meter.createCounter('gatehouse.refusals', {
                description: 'Requests refused, by error code.',
              }),
              storage: meter.createHistogram('gatehouse.storage.duration', {
                description: 'Time of a storage call, by store, operation and outcome.',
                unit: 's',
              }),
              revocationLag: meter.createHistogram('gatehouse.revocation.channel_lag', {
                description: 'Round trip of a probe through the pushed-revocations channel.',
                unit: 's',
              }),
            };
    }
    return this.#instruments;
  }

  /**
   * Runs one request of `route` in its span (a child of the request's W3C `traceparent`, else of the
   * active context) and counts it. `run` gets the observation its events go to, or `undefined`
   * when nothing is registered (then nothing else is done).
   */
  async endpoint(
    route: string,
    request: Request,
    run: (observation: RequestObservation | undefined) => Promise<Answer>,
  ): Promise<Answer> {
    const api = this.api;
    const tracer = this.tracer();
    const instruments = this.instruments();
    if (!tracer && !instruments) return run(undefined);
    const method = knownMethod(request.method);
    const start = performance.now();
    const instance = this.instance;
    let clientId: string | undefined;
    const observation: RequestObservation = {
      observe(event) {
        // A presented client id may be as long as the body limit allows: cut (`recordedText`).
        if ('clientId' in event && event.clientId !== undefined) clientId ??= recordedText(event.clientId);
        if (event.type === 'token.issued')
          instruments?.tokens.add(1, {
            'gatehouse.grant_type': event.grantType,
            'gatehouse.instance': instance,
          });
      },
    };
    let span: Span | undefined;
    let active: OtelContext | undefined;
    if (tracer) {
      const parent = remoteParent(api, request);
      span = tracer.startSpan(
        `${method} ${route}`,
        {
          kind: SERVER,
          attributes: {
            'http.request.method': method,
            'http.route': route,
            'gatehouse.instance': this.instance,
          },
        },
        parent,
      );
      active = api.trace.setSpan(parent, span);
    }
    let status = 500;
    let code: string | undefined;
    try {
      const answer = active ? await api.context.with(active, () => run(observation)) : await run(observation);
      status = answer.status;
      if (status >= 300) code = errorCodeOf(answer);
      return answer;
    } catch (error) {
      if (error instanceof ProtocolError) {
        status = error.status;
        code = knownErrorCode(error.code);
      } else code = 'server_error';
      throw error;
    } finally {
      const attributes: Attributes = {
        'http.request.method': method,
        'http.route': route,
        'http.response.status_code': status,
        'gatehouse.instance': this.instance,
        'gatehouse.outcome': status >= 500 ? 'error' : code ? 'refused' : 'success',
      };
      if (code) attributes['gatehouse.error'] = code;
      if (span) {
        span.setAttributes(attributes);
        if (clientId !== undefined) span.setAttribute('gatehouse.client_id', clientId);
        if (code) span.setAttribute('error.type', code);
        if (status >= 500) span.setStatus({ code: ERROR });
        span.end();
      }
      if (instruments) {
        instruments.requests.add(1, attributes);
        instruments.duration.record((performance.now() - start) / 1000, attributes);
        if (code)
          instruments.refusals.add(1, {
            'gatehouse.error': code,
            'http.route': route,
            'gatehouse.instance': this.instance,
          });
      }
    }
  }

  /** Records one probe round trip of the pushed-revocations channel (`pushedRevocations`). */
  revocationLag(ms: number): void {
    this.instruments()?.revocationLag.record(ms / 1000, { 'gatehouse.instance': this.instance });
  }

  /**
   * Times one storage call: a span when a request's span is active (needs the host's context
   * manager, e.g. the Node SDK's), and the latency histogram when a meter provider is registered.
   */
  storageCall<T>(store: string, operation: string, call: () => T): T {
    const api = this.api;
    const instruments = this.instruments();
    const parent = api.context.active();
    const tracer = api.trace.getSpan(parent) ? this.tracer() : undefined;
    if (!tracer && !instruments) return call();
    const attributes: Attributes = {
      'gatehouse.store': store,
      'gatehouse.operation': operation,
      'gatehouse.instance': this.instance,
    };
    const span = tracer?.startSpan(
      `gatehouse.storage ${store}.${operation}`,
      { kind: CLIENT, attributes },
      parent,
    );
    const start = performance.now();
    const done = (failed: unknown) => {
      if (span) {
        if (failed !== undefined) {
          span.setStatus({ code: ERROR });
          span.setAttribute('error.type', (failed as { code?: string }).code ?? 'storage_error');
        }
        span.end();
      }
      instruments?.storage.record((performance.now() - start) / 1000, {
        ...attributes,
        'gatehouse.outcome': failed === undefined ? 'success' : 'error',
      });
    };
    let result: T;
    try {
      result = call();
    } catch (error) {
      done(error ?? new Error('thrown'));
      throw error;
    }
    if (result instanceof Promise) {
      return result.then(
        (value) => {
          done(undefined);
          return value;
        },
        (error) => {
          done(error ?? new Error('rejected'));
          throw error;
        },
      ) as T;
    }
    done(undefined);
    return result;
  }
}

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** The method as an attribute: any other is `_OTHER` (OTel HTTP semantic conventions), so that a client cannot add attribute values. */
function knownMethod(method: string): string {
  const upper = method.toUpperCase();
  return METHODS.has(upper) ? upper : '_OTHER';
}

/**
 * The error code of a refusing answer, from a closed set (metric labels must not take values a
 * client chose): the code Gatehouse decided (an authorize error redirect or error page, marked by
 * `refusal.ts`), else the JSON `error` Gatehouse wrote, else `http_{status}`. A redirect is never
 * parsed: its URI is the client's, whose registered query may carry an `error` of its own, and a
 * redirect Gatehouse did not mark as a refusal (the code to the client) is a success.
 */
function errorCodeOf(answer: Answer): string | undefined {
  const decided = refusalOf(answer);
  if (decided !== undefined) return decided;
  const status = answer.status;
  if (status < 400) return undefined;
  if (isReply(answer) && answer.body?.startsWith('{')) {
    try {
      const error = (JSON.parse(answer.body) as { error?: unknown }).error;
      if (typeof error === 'string') return knownErrorCode(error);
    } catch {}
  }
  return `http_${status}`;
}

/** `code` when it is one of Gatehouse's protocol error codes (`ERROR_TABLE`), else `other`. */
function knownErrorCode(code: string): string {
  return Object.hasOwn(ERROR_TABLE, code) ? code : 'other';
}
