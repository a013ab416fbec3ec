import { ConfigurationError, memoryClientStore } from '@gatehousejs/core';
import { memoryGrantStore } from '@gatehousejs/core/engine';
import * as api from '@opentelemetry/api';
import { context, metrics, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { authorizeUrl, callbackParams, FakeBrowser, signIn } from '../../test/browser-flow';
import {
  authApiToken,
  basic,
  bearerPost,
  ISSUER,
  issueTokens,
  post,
  testClients,
  testInstance,
} from '../../test/fixtures';

const spans = new InMemorySpanExporter();
const metricExporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
const reader = new PeriodicExportingMetricReader({
  exporter: metricExporter,
  exportIntervalMillis: 3_600_000,
});
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_ID = '00f067aa0ba902b7';

beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(
    new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] }),
  );
  metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }));
});
afterAll(() => {
  trace.disable();
  metrics.disable();
  context.disable();
  propagation.disable();
});
afterEach(() => spans.reset());

/** The metric points of `name` collected so far, as attribute sets and values. */
async function points(name: string) {
  await reader.forceFlush();
  const exported = metricExporter.getMetrics().at(-1);
  metricExporter.reset();
  const metric = exported?.scopeMetrics
    .flatMap((scope) => scope.metrics)
    .find((m) => m.descriptor.name === name);
  return (metric?.dataPoints ?? []).map((p) => ({ attributes: p.attributes, value: p.value }));
}

describe('OpenTelemetry', () => {
  it('gives each request a server span named by route, child of the W3C traceparent, with status, client and error', async () => {
    const t = await testInstance({ telemetry: { api } });
    const response = await t.gatehouse.fetch(
      post(
        '/oauth2/v1/token',
        { grant_type: 'refresh_token', refresh_token: 'nope' },
        { Authorization: basic('demo-client', 'demo-secret'), traceparent: `00-${TRACE_ID}-${PARENT_ID}-01` },
      ),
    );
    expect(response.status).toBe(400);
    const server = spans.getFinishedSpans().find((s) => s.name === 'POST /oauth2/v1/token')!;
    expect(server).toBeDefined();
    expect(server.kind).toBe(1); // SERVER
    expect(server.spanContext().traceId).toBe(TRACE_ID);
    expect(server.parentSpanContext?.spanId).toBe(PARENT_ID);
    expect(server.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.route': '/oauth2/v1/token',
      'http.response.status_code': 400,
      'gatehouse.error': 'invalid_grant',
      'error.type': 'invalid_grant',
      'gatehouse.instance': ISSUER,
      'gatehouse.outcome': 'refused',
    });
  });

  it('keeps attribute values to bounded sets: another method is _OTHER', async () => {
    const t = await testInstance({ telemetry: { api } });
    const response = await t.gatehouse.fetch(new Request(`${ISSUER}/oauth2/v1/token`, { method: 'BREW' }));
    expect(response.status).toBe(405);
    const server = spans.getFinishedSpans().find((s) => s.name === '_OTHER /oauth2/v1/token')!;
    expect(server.attributes).toMatchObject({
      'http.request.method': '_OTHER',
      'http.response.status_code': 405,
    });
  });

  it('labels an authorize redirect by what Gatehouse decided, never by an error in the redirect URI the client registered', async () => {
    const evilRedirect = 'http://localhost:3000/callback?error=evil';
    const t = await testInstance({
      telemetry: { api },
      clients: memoryClientStore([
        ...(await testClients()),
        { id: 'evil-query', type: 'public', redirectUris: [evilRedirect], firstParty: true },
      ]),
    });
    await points('gatehouse.refusals'); // what earlier tests recorded
    const browser = new FakeBrowser(t.gatehouse);
    const issued = await signIn(
      browser,
      authorizeUrl({ client_id: 'evil-query', redirect_uri: evilRedirect }),
    );
    expect(callbackParams(issued).get('code')).toBeTruthy();
    expect(callbackParams(issued).getAll('error')).toEqual(['evil']); // the registered query, kept
    spans.reset();
    const refused = await browser.get(
      authorizeUrl({ client_id: 'evil-query', redirect_uri: evilRedirect, scope: 'read', prompt: 'bogus' }),
    );
    expect(callbackParams(refused).getAll('error')).toEqual(['evil', 'invalid_request']);
    const server = spans.getFinishedSpans().find((s) => s.name === 'GET /oauth2/v1/authorize')!;
    expect(server.attributes).toMatchObject({
      'gatehouse.error': 'invalid_request',
      'gatehouse.outcome': 'refused',
    });
    const labels = (await points('gatehouse.refusals'))
      .filter((p) => p.attributes['gatehouse.instance'] === ISSUER)
      .map((p) => p.attributes['gatehouse.error']);
    expect(labels).toContain('invalid_request');
    expect(labels).not.toContain('evil');
  });

  it('counts the code redirect to a redirect URI carrying ?error= as a success', async () => {
    const evilRedirect = 'http://localhost:3000/callback?error=evil';
    const t = await testInstance({
      telemetry: { api },
      clients: memoryClientStore([
        ...(await testClients()),
        { id: 'evil-query', type: 'public', redirectUris: [evilRedirect], firstParty: true },
      ]),
    });
    const browser = new FakeBrowser(t.gatehouse);
    await signIn(browser, authorizeUrl({ client_id: 'evil-query', redirect_uri: evilRedirect }));
    spans.reset();
    const issued = await browser.get(authorizeUrl({ client_id: 'evil-query', redirect_uri: evilRedirect }));
    expect(callbackParams(issued).get('code')).toBeTruthy();
    const server = spans.getFinishedSpans().find((s) => s.name === 'GET /oauth2/v1/authorize')!;
    expect(server.attributes['gatehouse.outcome']).toBe('success');
    expect(server.attributes['gatehouse.error']).toBeUndefined();
  });

  it('cuts a presented client_id of 60 KB to 256 characters in the span', async () => {
    const t = await testInstance({ telemetry: { api } });
    const response = await t.gatehouse.fetch(
      post('/oauth2/v1/token', {
        grant_type: 'client_credentials',
        client_id: 'c'.repeat(60_000),
        client_secret: 'x',
      }),
    );
    expect(response.status).toBe(401);
    const server = spans.getFinishedSpans().find((s) => s.name === 'POST /oauth2/v1/token')!;
    const clientId = server.attributes['gatehouse.client_id'] as string;
    expect(clientId).toHaveLength(256);
    expect(clientId.endsWith('…[cut from 60000 characters]')).toBe(true);
    expect(server.attributes['gatehouse.error']).toBe('invalid_client');
  });

  it('names the client, and puts every storage call in a child span', async () => {
    const t = await testInstance({ telemetry: { api } });
    await issueTokens(t);
    const server = spans.getFinishedSpans().find((s) => s.name === 'POST /oauth2/v1/token')!;
    expect(server.attributes['gatehouse.client_id']).toBe('demo-client');
    expect(server.attributes['http.response.status_code']).toBe(200);
    const storage = spans.getFinishedSpans().filter((s) => s.name.startsWith('gatehouse.storage '));
    expect(storage.map((s) => s.name)).toContain('gatehouse.storage grants.exchangeCode');
    for (const span of storage) {
      expect(span.spanContext().traceId).toBe(server.spanContext().traceId);
      expect(span.parentSpanContext?.spanId).toBe(server.spanContext().spanId);
      expect(span.kind).toBe(2); // CLIENT
    }
  });

  it('counts requests by route and outcome, tokens by grant, refusals by reason, and storage latency', async () => {
    const t = await testInstance({ telemetry: { api } });
    await points('gatehouse.requests'); // what earlier tests recorded
    await issueTokens(t);
    await t.gatehouse.fetch(
      post('/oauth2/v1/token', { grant_type: 'client_credentials' }, { Authorization: basic('x', 'y') }),
    );
    await t.gatehouse.fetch(
      post('/oauth2/v1/token', { grant_type: 'password' }, { Authorization: basic('x', 'y') }),
    );
    await reader.forceFlush();
    const all = metricExporter
      .getMetrics()
      .at(-1)!
      .scopeMetrics.flatMap((s) => s.metrics);
    const of = (name: string) =>
      all
        .find((m) => m.descriptor.name === name)!
        .dataPoints.filter((p) => p.attributes['gatehouse.instance'] === ISSUER);
    expect(
      of('gatehouse.requests').some(
        (p) =>
          p.attributes['gatehouse.outcome'] === 'success' &&
          p.attributes['http.route'] === '/oauth2/v1/token',
      ),
    ).toBe(true);
    const tokens = of('gatehouse.tokens.issued').find(
      (p) => p.attributes['gatehouse.grant_type'] === 'authorization_code',
    );
    expect(tokens?.value).toBeGreaterThanOrEqual(1);
    const refusals = of('gatehouse.refusals').map((p) => p.attributes['gatehouse.error']);
    expect(refusals).toContain('invalid_client');
    const storage = of('gatehouse.storage.duration').find(
      (p) =>
        p.attributes['gatehouse.store'] === 'grants' &&
        p.attributes['gatehouse.operation'] === 'exchangeCode',
    );
    expect((storage!.value as { count: number }).count).toBeGreaterThanOrEqual(1);
  });

  it('measures the lag of the pushed-revocations channel', async () => {
    const t = await testInstance({
      telemetry: { api },
      pushedRevocations: true,
      storage: { grants: memoryGrantStore() },
    });
    const token = await authApiToken(t);
    await points('gatehouse.revocation.channel_lag');
    for (let i = 0; i < 20 && (await points('gatehouse.revocation.channel_lag')).length === 0; i++) {
      await t.gatehouse.authenticate(bearerPost('/api/v1/things', token), { schemes: ['bearer'] });
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await reader.forceFlush();
    const lag = (await points('gatehouse.revocation.channel_lag')).find(
      (p) => p.attributes['gatehouse.instance'] === ISSUER,
    );
    expect((lag!.value as { count: number }).count).toBeGreaterThanOrEqual(1);
  });

  it('adds no span to the bearer check of the host API', async () => {
    const t = await testInstance({ telemetry: { api } });
    const token = await authApiToken(t);
    spans.reset();
    const result = await t.gatehouse.authenticate(bearerPost('/api/v1/things', token), {
      schemes: ['bearer'],
    });
    expect(result.ok).toBe(true);
    expect(spans.getFinishedSpans()).toEqual([]);
  });

  it('records nothing without the telemetry option', async () => {
    const t = await testInstance();
    await issueTokens(t);
    expect(spans.getFinishedSpans()).toEqual([]);
  });

  it('refuses a telemetry.api that is not the OpenTelemetry API', async () => {
    await expect(testInstance({ telemetry: { api: {} } })).rejects.toThrow(ConfigurationError);
    await expect(testInstance({ telemetry: { api: {} } })).rejects.toThrow(/^telemetry\.api: /);
  });
});
