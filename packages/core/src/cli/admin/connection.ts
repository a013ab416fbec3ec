/*
 * How `gatehouse admin` reaches an instance's admin API: an access token given as is (`--token`),
 * or one obtained with the client credentials grant (RFC 6749 §4.4, `client_secret_basic`) at the
 * token endpoint the instance's metadata names (RFC 8414 §3), for the admin scope. Failures are
 * sorted by what a script does about them: refused (exit 1) or not reached (exit 3).
 */

/** The `fetch` the command uses (the runtime's; a test's stand-in). */
export type Fetch = (input: string, init?: RequestInit) => Promise<Response>;

/** The server answered with a refusal or an error (exit code 1). */
export class Refused extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly body: unknown,
  ) {
    super(message);
  }
}

/** The server could not be reached, or did not answer HTTP (exit code 3). */
export class Unreachable extends Error {}

/** Who the command is and where it goes. */
export interface Credentials {
  readonly issuer: string;
  readonly token?: string;
  readonly clientId?: string;
  readonly clientSecret?: string;
  readonly scope: string;
}

async function send(fetch: Fetch, url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, { ...init, redirect: 'manual' });
  } catch (error) {
    const cause =
      error instanceof Error
        ? error.cause instanceof Error
          ? error.cause.message
          : error.message
        : String(error);
    throw new Unreachable(`Could not reach ${new URL(url).origin}: ${cause}`);
  }
}

async function json(response: Response): Promise<unknown> {
  const text = await response.text();
  if (text === '') return {};
  try {
    return JSON.parse(text);
  } catch {
    return { error: 'not_json', error_description: text.slice(0, 200) };
  }
}

/** The sentence of an RFC 6749 §5.2 / RFC 6750 §3 error body, with its status. */
export function describeError(status: number, body: unknown): string {
  const { error, error_description: description } = (body ?? {}) as {
    error?: unknown;
    error_description?: unknown;
  };
  const code = typeof error === 'string' ? error : `HTTP ${status}`;
  return typeof description === 'string' && description !== ''
    ? `${code}: ${description} (HTTP ${status})`
    : `${code} (HTTP ${status})`;
}

/** The token endpoint of `issuer`: from its RFC 8414 metadata, else its default path. */
async function tokenEndpoint(fetch: Fetch, issuer: string): Promise<string> {
  const url = new URL(issuer);
  const path = url.pathname === '/' ? '' : url.pathname;
  const response = await send(fetch, `${url.origin}/.well-known/oauth-authorization-server${path}`, {
    headers: { Accept: 'application/json' },
  });
  if (response.ok) {
    const metadata = (await json(response)) as { token_endpoint?: unknown; issuer?: unknown };
    if (typeof metadata.token_endpoint === 'string') return metadata.token_endpoint;
  }
  return `${issuer}/oauth2/v1/token`;
}

/** An access token for the admin API: `--token`, or the client credentials grant. */
export async function accessToken(fetch: Fetch, credentials: Credentials): Promise<string> {
  if (credentials.token !== undefined) return credentials.token;
  const { clientId, clientSecret, issuer, scope } = credentials;
  const endpoint = await tokenEndpoint(fetch, issuer);
  // RFC 6749 §2.3.1: the id and secret are form-urlencoded before Basic encoding.
  const encode = (value: string) => encodeURIComponent(value).replace(/%20/g, '+');
  const basic = btoa(`${encode(clientId ?? '')}:${encode(clientSecret ?? '')}`);
  const response = await send(fetch, endpoint, {
    method: 'POST',
    headers: {
      Authorization: `Basic ${basic}`,
      'Content-Type': 'application/x-www-form-urlencoded',
      Accept: 'application/json',
    },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope }).toString(),
  });
  const body = (await json(response)) as { access_token?: unknown };
  if (response.status !== 200 || typeof body.access_token !== 'string')
    throw new Refused(
      `The token endpoint refused the client: ${describeError(response.status, body)}`,
      response.status,
      body,
    );
  return body.access_token;
}

/** One admin API call: its status and JSON body; a non-2xx answer is {@link Refused}. */
export async function callAdmin(
  fetch: Fetch,
  issuer: string,
  token: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: unknown }> {
  const headers: Record<string, string> = { Authorization: `Bearer ${token}`, Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const response = await send(fetch, `${issuer}/admin/v1${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const answer = await json(response);
  if (response.status < 200 || response.status >= 300)
    throw new Refused(describeError(response.status, answer), response.status, answer);
  return { status: response.status, body: answer };
}
