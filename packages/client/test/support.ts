import { type ClientOptions, createClient, type FetchFunction } from '@gatehousejs/client';
import { ISSUER, mintCode, REDIRECT_URI, testInstance } from '../../core/test/fixtures';

/** What the fetch layer saw of one request. */
export interface SeenRequest {
  readonly method: string;
  readonly url: URL;
  readonly authorization: string | null;
  readonly credentials: RequestCredentials;
  readonly body: string;
}

/** A protected test resource: answers who called it, through the instance's own `authenticate`. */
export const RESOURCE_PATH = '/demo/api/v1/whoami';
/** A resource that refuses every token with 401 `invalid_token`. */
export const ALWAYS_REFUSED_PATH = '/demo/api/v1/refuses';

/**
 * An in-process Gatehouse instance (memory stores, fake clock) and a fetch function that routes to
 * it, records every request, and serves {@link RESOURCE_PATH} (bearer or session). `instanceOptions`
 * override the instance's options (e.g. `{ accessTokenTtl: 20 }`).
 */
export async function harness(instanceOptions: Parameters<typeof testInstance>[0] = {}) {
  const t = await testInstance(instanceOptions);
  const seen: SeenRequest[] = [];
  const fetch: FetchFunction = async (input, init) => {
    const request = new Request(input, init);
    seen.push({
      method: request.method,
      url: new URL(request.url),
      authorization: request.headers.get('authorization'),
      credentials: request.credentials,
      body: await request.clone().text(),
    });
    if (new URL(request.url).pathname === ALWAYS_REFUSED_PATH) {
      return Response.json(
        { error: 'invalid_token' },
        { status: 401, headers: { 'WWW-Authenticate': 'Bearer realm="test", error="invalid_token"' } },
      );
    }
    if (new URL(request.url).pathname === RESOURCE_PATH) {
      const result = await t.gatehouse.authenticate(request, { schemes: ['bearer', 'session'] });
      if (!result.ok) return result.response;
      return Response.json({
        sub: result.caller.sub,
        scheme: result.caller.scheme,
        body: await request.text(),
      });
    }
    return t.gatehouse.fetch(request);
  };
  /** Requests to the token endpoint with the given grant type. */
  const tokenCalls = (grantType: string) =>
    seen.filter(
      (r) =>
        r.url.pathname === '/demo/oauth2/v1/token' &&
        new URLSearchParams(r.body).get('grant_type') === grantType,
    );
  /** A client of this instance; `demo-client` (confidential) unless told otherwise. */
  const client = (options: Partial<ClientOptions> = {}) =>
    createClient({
      baseUrl: ISSUER,
      clientId: 'demo-client',
      clientSecret: 'demo-secret',
      redirectUri: REDIRECT_URI,
      fetch,
      now: t.clock.now,
      locks: null,
      ...options,
    });
  return { ...t, fetch, seen, tokenCalls, client };
}

/**
 * Signs `client` in through the code flow, with the code minted through the storage API (what the
 * authorize endpoint does after login) for the PKCE challenge and state of the client's own URL.
 */
export async function signIn(
  h: Awaited<ReturnType<typeof harness>>,
  client: ReturnType<Awaited<ReturnType<typeof harness>>['client']>,
  clientId = 'demo-client',
) {
  const url = await client.authorizationUrl({ scope: 'read write' });
  const code = await mintCodeFor(h, url, clientId);
  return client.handleCallback(
    `${REDIRECT_URI}?code=${code}&state=${url.searchParams.get('state')}&iss=${encodeURIComponent(ISSUER)}`,
  );
}

async function mintCodeFor(h: Awaited<ReturnType<typeof harness>>, url: URL, clientId: string) {
  return mintCode(h, {
    clientId,
    codeChallenge: url.searchParams.get('code_challenge'),
    scope: 'read write',
  });
}
