/**
 * Each module family can fail: the Gatehouse demo deliberately broken (its answers rewritten on the
 * way out, or its requests on the way in), one breakage per family, and the module that checks it
 * fails with the section it breaks and the exchange that showed it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { findPlan, type PlanResult, runPlan, summary } from '../src/index.js';
import {
  type Breakage,
  chromiumSkipReason,
  startBrokenGatehouse,
  startGatehouseFapi2,
  type TestServer,
} from './servers.js';

const skip = chromiumSkipReason();
if (skip) console.warn(`broken.test: skipped, ${skip}.`);

/** The same response with its Location rewritten (3xx only). */
function relocate(response: Response, rewrite: (location: URL) => URL | string): Response {
  const location = response.headers.get('location');
  if (response.status < 300 || response.status > 399 || !location) return response;
  const headers = new Headers(response.headers);
  headers.set('location', String(rewrite(new URL(location))));
  return new Response(null, { status: response.status, headers });
}

/** The same JSON response with its body rewritten. */
async function rejson(
  response: Response,
  rewrite: (body: Record<string, unknown>) => Record<string, unknown>,
): Promise<Response> {
  if (!/json/.test(response.headers.get('content-type') ?? '')) return response;
  const body = rewrite((await response.json()) as Record<string, unknown>);
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  return new Response(JSON.stringify(body), { status: response.status, headers });
}

const path = (request: Request) => new URL(request.url).pathname;
const without = (url: URL, name: string) => {
  url.searchParams.delete(name);
  return url;
};

describe.skipIf(skip !== undefined)('a deliberately broken Gatehouse: each module family fails', () => {
  let server: TestServer | undefined;

  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  async function run(planId: string, module: string, breakage: Breakage): Promise<PlanResult> {
    server = await startBrokenGatehouse(breakage);
    return runPlan(findPlan(planId)!, { issuer: server.issuer, config: server.config, only: [module] });
  }

  function expectFailure(result: PlanResult, section: string, message: RegExp) {
    const text = summary(result);
    const [module] = result.modules;
    expect(module?.outcome, text).toBe('failed');
    expect(
      module!.failures.some((f) => f.section === section && message.test(f.message)),
      text,
    ).toBe(true);
    expect(text).toMatch(/request: {2}/);
    expect(text.trim().split('\n').at(-1)).toBe('0 passed, 1 failed, 0 skipped');
  }

  it('discovery: metadata without RS256 for ID tokens fails oidcc-discovery-endpoint-verification', async () => {
    const result = await run(
      'oidcc-config-certification-test-plan',
      'oidcc-discovery-endpoint-verification',
      {
        response: (request, response) =>
          path(request).endsWith('/.well-known/openid-configuration')
            ? rejson(response, (m) => ({ ...m, id_token_signing_alg_values_supported: ['ES256'] }))
            : response,
      },
    );
    expectFailure(result, 'OIDCD-3', /must include RS256/);
  });

  it('authorization response: a redirect without state fails oidcc-server', async () => {
    const result = await run('oidcc-basic-certification-test-plan', 'oidcc-server', {
      response: (_request, response) =>
        relocate(response, (url) => (url.pathname === '/callback' ? without(url, 'state') : url)),
    });
    expectFailure(result, 'RFC6749-4.1.2', /state is null/);
  });

  it('ID token: a signature that does not verify fails oidcc-server', async () => {
    const result = await run('oidcc-basic-certification-test-plan', 'oidcc-server', {
      response: (request, response) =>
        path(request).endsWith('/token')
          ? rejson(response, (body) => {
              const token = String(body.id_token);
              return { ...body, id_token: token.slice(0, -4) + (token.endsWith('AAAA') ? 'BBBB' : 'AAAA') };
            })
          : response,
    });
    expectFailure(result, 'OIDCC-3.1.3.7', /signature does not verify/);
  });

  it("userinfo: another user's sub fails oidcc-userinfo-get", async () => {
    const result = await run('oidcc-basic-certification-test-plan', 'oidcc-userinfo-get', {
      response: (request, response) =>
        path(request).endsWith('/userinfo')
          ? rejson(response, (body) => ({ ...body, sub: 'someone-else' }))
          : response,
    });
    expectFailure(result, 'OIDCC-5.3.2', /userinfo's sub/);
  });

  it('prompt: ignoring prompt=none (the login page shown) fails oidcc-prompt-none-not-logged-in', async () => {
    const result = await run('oidcc-basic-certification-test-plan', 'oidcc-prompt-none-not-logged-in', {
      request: (request) => {
        const url = new URL(request.url);
        if (!url.pathname.endsWith('/authorize') || request.method !== 'GET') return request;
        url.searchParams.delete('prompt');
        return new Request(url, { headers: request.headers });
      },
    });
    expectFailure(result, 'OIDCC-3.1.2.1', /prompt=none: the server showed its login page/);
  });

  it('codes: a code accepted twice fails oidcc-codereuse-30seconds', async () => {
    const answers = new Map<string, string>();
    const codes = new WeakMap<Request, string>();
    const result = await run('oidcc-basic-certification-test-plan', 'oidcc-codereuse-30seconds', {
      request: async (request) => {
        if (!path(request).endsWith('/token')) return request;
        const body = await request.text();
        const copy = new Request(request.url, { method: 'POST', headers: request.headers, body });
        const code = new URLSearchParams(body).get('code');
        if (code) codes.set(copy, code);
        return copy;
      },
      response: async (request, response) => {
        const code = codes.get(request);
        if (!code) return response;
        const seen = answers.get(code);
        if (seen)
          return new Response(seen, {
            status: 200,
            headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
          });
        const text = await response.text();
        answers.set(code, text);
        return new Response(text, { status: response.status, headers: response.headers });
      },
    });
    expectFailure(result, 'RFC6749-4.1.2', /the server issued tokens/);
  });

  it('redirect URIs: redirecting to an unregistered redirect_uri fails oidcc-ensure-registered-redirect-uri', async () => {
    const result = await run('oidcc-basic-certification-test-plan', 'oidcc-ensure-registered-redirect-uri', {
      response: (request, response) => {
        const url = new URL(request.url);
        const target = url.searchParams.get('redirect_uri');
        if (!url.pathname.endsWith('/authorize') || !target?.includes('unregistered')) return response;
        return new Response(null, {
          status: 302,
          headers: { location: `${target}?error=invalid_request&state=${url.searchParams.get('state')}` },
        });
      },
    });
    expectFailure(result, 'RFC6749-4.1.2.1', /redirected to the unregistered redirect_uri/);
  });

  it('RP-initiated logout: a post-logout redirect without state fails oidcc-rp-initiated-logout', async () => {
    const result = await run(
      'oidcc-rp-initiated-logout-certification-test-plan',
      'oidcc-rp-initiated-logout',
      {
        response: (_request, response) =>
          relocate(response, (url) => (url.pathname === '/logged-out' ? without(url, 'state') : url)),
      },
    );
    expectFailure(result, 'OIDCRIL-3', /state is null/);
  });

  it('RP-initiated logout: redirecting to an unregistered post_logout_redirect_uri fails its module', async () => {
    const result = await run(
      'oidcc-rp-initiated-logout-certification-test-plan',
      'oidcc-rp-initiated-logout-bad-post-logout-redirect-uri',
      {
        response: (request, response) => {
          const target = new URL(request.url).searchParams.get('post_logout_redirect_uri');
          if (!path(request).endsWith('/end-session') || !target?.includes('unregistered')) return response;
          return new Response(null, { status: 302, headers: { location: target } });
        },
      },
    );
    expectFailure(result, 'OIDCRIL-3', /redirected the user/);
  });

  it('FAPI 2.0: an authorization response without iss fails the happy flow', async () => {
    server = await startGatehouseFapi2({
      response: (_request, response) =>
        relocate(response, (url) => (url.pathname === '/callback' ? without(url, 'iss') : url)),
    });
    const result = await runPlan(findPlan('fapi2-security-profile-final-test-plan')!, {
      issuer: server.issuer,
      config: server.config,
      only: ['fapi2-security-profile-final-happy-flow'],
    });
    expectFailure(result, 'FAPI2-SP-5.3.2.2', /no iss/);
  });

  it('MCP: a 401 without resource_metadata fails mcp-protected-resource-discovery-from-401', async () => {
    const result = await run('mcp-authorization-server', 'mcp-protected-resource-discovery-from-401', {
      response: (request, response) => {
        if (path(request) !== '/mcp' || response.status !== 401) return response;
        const headers = new Headers(response.headers);
        headers.set('www-authenticate', 'Bearer');
        return new Response(response.body, { status: 401, headers });
      },
    });
    expectFailure(result, 'RFC9728-5.1', /names no resource_metadata/);
  });

  it('MCP: an error redirect without iss fails mcp-iss-on-error-redirect', async () => {
    const result = await run('mcp-authorization-server', 'mcp-iss-on-error-redirect', {
      response: (_request, response) =>
        relocate(response, (url) => (url.pathname === '/callback' ? without(url, 'iss') : url)),
    });
    expectFailure(
      result,
      'RFC9207-2',
      /server advertises authorization_response_iss_parameter_supported but sent no iss/,
    );
  });
});
