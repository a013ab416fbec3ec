/**
 * The user's part, in Chromium (playwright-core driving an installed Chromium, never a downloaded
 * one): a user agent that follows the server's pages, signs in and consents through the selectors
 * the config names, confirms logouts, and stops at the client's redirect URI, whose request it
 * captures without sending it anywhere — as the OpenID Foundation's suite drives its browser.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { type ConformanceConfig, selectors } from './config.js';

/** Where an authorization request (or a logout) ended. */
export type Landing =
  /** The browser was sent to one of the client's URIs (redirect or post-logout redirect URI). */
  | { readonly kind: 'redirect'; readonly url: URL; readonly method: string; readonly form?: URLSearchParams }
  /**
   * The browser stayed on a page of the server (an error page, or a login or consent page when the
   * flow said not to interact).
   */
  | {
      readonly kind: 'page';
      readonly url: string;
      readonly status: number | undefined;
      readonly text: string;
      /** What the page is, as the selectors tell: `login`, `consent`, `logout` or `other`. */
      readonly page: 'login' | 'consent' | 'logout' | 'other';
    };

/** Options of {@link UserAgent.go}. */
export interface GoOptions {
  /** Sign in, consent and confirm when asked (default). `false`: stop at the first such page. */
  readonly interact?: boolean;
  /** Deny on the consent page instead of approving. */
  readonly deny?: boolean;
  /** The user name typed (default the config's). */
  readonly username?: string;
}

/** The flags Chromium runs with: headless, no sandbox (containers), quiet and offline but loopback. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
] as const;

/** Launches Chromium (`config.chromium`, default `/usr/bin/chromium`). */
export async function launchBrowser(config: ConformanceConfig): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath: config.chromium ?? '/usr/bin/chromium',
    args: [...CHROMIUM_ARGS],
  });
}

/** One browser profile (cookies and all): a user who signs in once and comes back. */
export class UserAgent {
  /** How many times a login page / consent page / logout confirmation was shown and answered. */
  logins = 0;
  consents = 0;
  logoutConfirmations = 0;
  private captured: { url: URL; method: string; form?: URLSearchParams } | undefined;
  private readonly timeout: number;
  private readonly s: ReturnType<typeof selectors>;

  private constructor(
    readonly context: BrowserContext,
    readonly page: Page,
    private readonly config: ConformanceConfig,
    private readonly clientUris: () => readonly string[],
  ) {
    this.timeout = config.browser_timeout_ms ?? 10_000;
    this.s = selectors(config);
  }

  /**
   * A fresh profile. Requests to any of `clientUris()` (the clients' redirect and post-logout
   * redirect URIs, also unregistered ones a module tries) are captured and answered with an empty
   * page: the tool is the client.
   */
  static async open(
    browser: Browser,
    config: ConformanceConfig,
    clientUris: () => readonly string[],
  ): Promise<UserAgent> {
    const context = await browser.newContext();
    const page = await context.newPage();
    const agent = new UserAgent(context, page, config, clientUris);
    agent.watchStatuses();
    // The client's URIs are caught with the DevTools protocol's Fetch domain, which (unlike
    // Playwright's routes) also pauses a request reached by a redirect: the server's 302 to the
    // redirect URI is where the response is read. Fonts, images and media play no part in the flows;
    // left out, a page that pulls them from the internet does not hold the run up without network.
    const cdp = await context.newCDPSession(page);
    cdp.on('Fetch.requestPaused', (event) => {
      const { requestId, request, resourceType } = event;
      const answer = async () => {
        if (agent.isClientUri(new URL(request.url))) {
          agent.captured = {
            url: new URL(request.url),
            method: request.method,
            ...(request.method === 'POST' && request.postData
              ? { form: new URLSearchParams(request.postData) }
              : {}),
          };
          await cdp.send('Fetch.fulfillRequest', {
            requestId,
            responseCode: 200,
            responseHeaders: [{ name: 'content-type', value: 'text/html' }],
            body: Buffer.from('<!doctype html><title>client</title>').toString('base64'),
          });
        } else if (resourceType === 'Font' || resourceType === 'Image' || resourceType === 'Media') {
          await cdp.send('Fetch.failRequest', { requestId, errorReason: 'BlockedByClient' });
        } else {
          await cdp.send('Fetch.continueRequest', { requestId });
        }
      };
      // A page closed while a request was paused: nothing left to answer.
      answer().catch(() => undefined);
    });
    await cdp.send('Fetch.enable', { patterns: [{ urlPattern: '*', requestStage: 'Request' }] });
    return agent;
  }

  private isClientUri(url: URL): boolean {
    const href = url.href;
    return this.clientUris().some((uri) => {
      const base = uri.split(/[?#]/)[0]!;
      return href === base || href.startsWith(`${base}?`) || href.startsWith(`${base}#`);
    });
  }

  /** Opens `url` (a GET), then plays the user's part until the browser reaches a client URI or stops. */
  async go(url: string, options: GoOptions = {}): Promise<Landing> {
    this.captured = undefined;
    await this.navigate(() => this.page.goto(url, { timeout: this.timeout, waitUntil: 'domcontentloaded' }));
    return this.follow(options);
  }

  /** Sends `params` to `url` as a form POST from the browser (OIDC Core §3.1.2.1 allows POST). */
  async post(url: string, params: Record<string, string>, options: GoOptions = {}): Promise<Landing> {
    this.captured = undefined;
    await this.page.goto('about:blank');
    await this.navigate(() =>
      this.page.evaluate(
        ({ action, fields }) => {
          const form = document.createElement('form');
          form.method = 'POST';
          form.action = action;
          for (const [name, value] of Object.entries(fields)) {
            const input = document.createElement('input');
            input.type = 'hidden';
            input.name = name;
            input.value = value;
            form.append(input);
          }
          document.body.append(form);
          form.submit();
        },
        { action: url, fields: params },
      ),
    );
    return this.follow(options);
  }

  /** Runs an action that starts a navigation and waits for the page it leads to (or a capture). */
  private async navigate(action: () => Promise<unknown>): Promise<void> {
    const navigation = this.page
      .waitForNavigation({ timeout: this.timeout, waitUntil: 'domcontentloaded' })
      .catch(() => undefined);
    try {
      await action();
    } catch (error) {
      // A navigation aborted by the capture (the route answers) is where the flow ends, not an error.
      if (!this.captured) throw error;
    }
    await navigation;
  }

  private async present(selector: string | undefined): Promise<boolean> {
    if (!selector) return false;
    return (await this.page.locator(selector).count()) > 0;
  }

  private async kindOfPage(): Promise<'login' | 'consent' | 'logout' | 'other'> {
    if (await this.present(this.s.password)) return 'login';
    if (await this.present(this.s.approve)) return 'consent';
    if (await this.present(this.s.logoutConfirm)) return 'logout';
    return 'other';
  }

  private async follow(options: GoOptions): Promise<Landing> {
    const interact = options.interact ?? true;
    for (let step = 0; step < 8; step++) {
      if (this.captured) return { kind: 'redirect', ...this.captured };
      const kind = await this.kindOfPage();
      if (kind === 'other' || !interact) {
        // A page that moves on by itself (a form posted by script) gets a moment to do so.
        if (kind === 'other' && step === 0) {
          await this.page
            .waitForLoadState('domcontentloaded', { timeout: this.timeout })
            .catch(() => undefined);
          if (this.captured) continue;
        }
        return this.stayed(kind);
      }
      if (kind === 'login') {
        const user = this.config.user;
        if (!user) throw new Error('the server shows a login page: the config needs `user`');
        this.logins++;
        if (await this.present(this.s.username)) {
          await this.page.fill(this.s.username, options.username ?? user.username);
        }
        await this.page.fill(this.s.password, user.password);
        await this.navigate(() => this.page.click(this.s.submit, { timeout: this.timeout }));
      } else if (kind === 'consent') {
        this.consents++;
        const button = options.deny ? this.s.deny : this.s.approve;
        if (!button) throw new Error('the config names no consent `deny` selector');
        await this.navigate(() => this.page.click(button, { timeout: this.timeout }));
      } else {
        this.logoutConfirmations++;
        await this.navigate(() => this.page.click(this.s.logoutConfirm!, { timeout: this.timeout }));
      }
    }
    if (this.captured) return { kind: 'redirect', ...this.captured };
    return this.stayed(await this.kindOfPage());
  }

  private async stayed(kind: 'login' | 'consent' | 'logout' | 'other'): Promise<Landing> {
    const text = await this.page
      .locator('body')
      .textContent({ timeout: 2000 })
      .catch(() => '');
    return {
      kind: 'page',
      url: this.page.url(),
      status: this.lastStatus,
      text: (text ?? '').replace(/\s+/g, ' ').trim().slice(0, 2000),
      page: kind,
    };
  }

  /** The status of the last document the page loaded. */
  private get lastStatus(): number | undefined {
    return this.statuses.at(-1);
  }

  private readonly statuses: number[] = [];

  /** Starts recording document statuses (called once on open). */
  watchStatuses(): void {
    this.page.on('response', (response) => {
      if (response.request().isNavigationRequest() && response.frame() === this.page.mainFrame()) {
        this.statuses.push(response.status());
      }
    });
  }

  async close(): Promise<void> {
    await this.context.close();
  }
}
