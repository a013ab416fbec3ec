/**
 * The configuration file (`--config <file>`, JSON): the clients registered at the server under
 * test, the user who signs in, and the selectors of the server's pages that the browser drives —
 * what the OpenID Foundation's suite asks in its plan configuration and its `browser` commands.
 */
import { readFile } from 'node:fs/promises';

/** A client registered at the server under test. */
export interface ClientConfig {
  readonly client_id: string;
  /** For `client_secret_basic` / `client_secret_post`. */
  readonly client_secret?: string;
  /** For `private_key_jwt`: the client's private JWKs (the server holds the public ones). */
  readonly jwks?: { readonly keys: readonly Record<string, unknown>[] };
  /** A redirect URI registered for this client. The browser stops there and reads the response. */
  readonly redirect_uri?: string;
  /** A post-logout redirect URI registered for this client (RP-initiated logout plans). */
  readonly post_logout_redirect_uri?: string;
  /** Scope to ask for besides `openid` in the happy flows. Default none. */
  readonly scope?: string;
}

/** CSS selectors of the server's pages, as the config names them. */
export interface BrowserSelectors {
  readonly login: {
    /** The user name field. Default `input[name="username"]`. */
    readonly username?: string;
    /** The password field; its presence marks a login page. Default `input[type="password"]`. */
    readonly password?: string;
    /** The button that submits the login form. Default `button[type="submit"]`. */
    readonly submit?: string;
  };
  readonly consent?: {
    /** The button that grants the request; its presence marks a consent page. */
    readonly approve?: string;
    /** The button that refuses it. */
    readonly deny?: string;
  };
  readonly logout?: {
    /** The button confirming an RP-initiated logout; its presence marks the confirmation page. */
    readonly confirm?: string;
  };
}

/** The whole configuration. */
export interface ConformanceConfig {
  /** The issuer; `--issuer` overrides it. */
  readonly issuer?: string;
  /** Basic, RP-logout plans: a confidential client with `client_secret_basic`. */
  readonly client?: ClientConfig;
  /** A second client (refresh tokens and codes must be bound to the client that got them). */
  readonly client2?: ClientConfig;
  /** `oidcc-server-client-secret-post`: a client with `client_secret_post` (default: `client`). */
  readonly client_secret_post?: ClientConfig;
  /** `oidcc-idtoken-unsigned`: a client registered with `id_token_signed_response_alg: none`. */
  readonly client_unsigned?: ClientConfig;
  /** FAPI 2.0 plan: a `private_key_jwt` client with DPoP, which must use PAR. */
  readonly fapi_client?: ClientConfig;
  /** FAPI 2.0 plan: a second such client. */
  readonly fapi_client2?: ClientConfig;
  /** MCP plan: the protected resource and its clients. */
  readonly mcp?: McpConfig;
  /** The user who signs in. */
  readonly user?: { readonly username: string; readonly password: string };
  /** `oidcc-login-hint`: the hint sent. Default `buffy@<issuer host>` as the Foundation's suite. */
  readonly login_hint?: string;
  /** `oidcc-ui-locales`, `oidcc-claims-locales`: the locale sent. Default `se`. */
  readonly locale?: string;
  /** Selectors of the login, consent and logout confirmation pages. */
  readonly browser?: BrowserSelectors;
  /** Seconds `oidcc-codereuse-30seconds` waits before reusing a code. Default 30. */
  readonly code_reuse_wait_seconds?: number;
  /** Seconds the FAPI 2.0 expired-code module waits before redeeming a code. Default 65. */
  readonly auth_code_expiry_wait_seconds?: number;
  /** Milliseconds the browser waits for a page to move on after an action. Default 10000. */
  readonly browser_timeout_ms?: number;
  /** Path of the Chromium executable. Default `/usr/bin/chromium`. */
  readonly chromium?: string;
}

/** The MCP authorization profile's setting. */
export interface McpConfig {
  /** The MCP server URL (a protected resource): the tool calls it without a token for its 401. */
  readonly resource: string;
  /** A client registered at the server that may ask tokens for the resource (public or not). */
  readonly client: ClientConfig;
  /** Scope the resource needs. */
  readonly scope?: string;
  /**
   * Base URL where the tool serves client ID metadata documents (it starts a server on it). The
   * server under test must be allowed to fetch from there (loopback only in development).
   */
  readonly metadata_document_base?: string;
}

/** Reads and parses a config file; throws with the path when it is not a JSON object. */
export async function loadConfig(path: string): Promise<ConformanceConfig> {
  const text = await readFile(path, 'utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new Error(`${path}: not JSON (${(error as Error).message})`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new Error(`${path}: expected a JSON object`);
  }
  return parsed as ConformanceConfig;
}

/** The selectors in effect: the config's, else defaults fitting most plain HTML login forms. */
export function selectors(config: ConformanceConfig) {
  const b = config.browser;
  return {
    username: b?.login.username ?? 'input[name="username"]',
    password: b?.login.password ?? 'input[type="password"]',
    submit: b?.login.submit ?? 'button[type="submit"]',
    approve: b?.consent?.approve,
    deny: b?.consent?.deny,
    logoutConfirm: b?.logout?.confirm,
  };
}
