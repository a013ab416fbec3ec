/**
 * What a new user does in the browser with a quick start: sign in through the authorization code
 * flow (RFC 6749 §4.1) on the instance's login page, then open one of the host's own routes, which
 * the session cookie authenticates.
 */
import type { Page } from 'playwright-core';

/** The client and the user a quick start registers. */
export interface QuickStartAccount {
  readonly clientId: string;
  readonly redirectUri: string;
  readonly username: string;
  readonly password: string;
}

/** A JSON answer: its status and parsed body (`undefined` when the body is not JSON). */
export interface JsonAnswer {
  readonly status: number;
  readonly body: unknown;
}

/**
 * Opens the authorization endpoint, fills in and submits the login form, and resolves with the URL
 * the browser was sent back to (the redirect URI with `code`, `state` and `iss`). The client of the
 * quick starts is confidential (PKCE not required by the default `requirePkce: 'public'`) and
 * first-party (no consent page). The code is not redeemed: the session cookie is what this is about.
 */
export async function signInWithCodeFlow(
  page: Page,
  issuer: string,
  account: QuickStartAccount,
): Promise<URL> {
  const authorize = new URL(`${issuer}/oauth2/v1/authorize`);
  authorize.search = new URLSearchParams({
    response_type: 'code',
    client_id: account.clientId,
    redirect_uri: account.redirectUri,
    scope: 'profile',
    state: 'quick-start',
  }).toString();
  await page.goto(authorize.href);
  await page.fill('input[name="username"]', account.username);
  await page.fill('input[name="password"]', account.password);
  await Promise.all([
    page.waitForURL((url) => url.href.startsWith(`${account.redirectUri}?`)),
    page.click('button[type="submit"]'),
  ]);
  return new URL(page.url());
}

/** Navigates to `url` like a user typing it, and reads the JSON answer. */
export async function openJson(page: Page, url: string): Promise<JsonAnswer> {
  const response = await page.goto(url);
  if (!response) throw new Error(`no response for ${url}`);
  const text = await response.text();
  return { status: response.status(), body: parseJson(text) };
}

/** `fetch(path, { credentials: 'include' })` from a script of the current page (same origin). */
export async function fetchFromPage(page: Page, path: string): Promise<JsonAnswer> {
  const { status, text } = await page.evaluate(async (target) => {
    const response = await fetch(target, { credentials: 'include' });
    return { status: response.status, text: await response.text() };
  }, path);
  return { status, body: parseJson(text) };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
