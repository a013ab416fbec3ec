/**
 * What the modules of one plan run share: the browser process (each module opens its own profile),
 * and the URIs the browser must capture rather than load.
 */
import type { Browser } from 'playwright-core';
import { launchBrowser, UserAgent } from './browser.js';
import type { ConformanceConfig } from './config.js';
import type { ModuleContext } from './context.js';

export class PlanEnv {
  private browser: Promise<Browser> | undefined;
  /** URIs the browser captures: every configured client URI, plus those modules add. */
  private readonly clientUris = new Set<string>();

  constructor(
    readonly issuer: string,
    readonly config: ConformanceConfig,
  ) {
    for (const client of [
      config.client,
      config.client2,
      config.client_secret_post,
      config.client_unsigned,
      config.fapi_client,
      config.fapi_client2,
      config.mcp?.client,
    ]) {
      if (client?.redirect_uri) this.clientUris.add(client.redirect_uri);
      if (client?.post_logout_redirect_uri) this.clientUris.add(client.post_logout_redirect_uri);
    }
  }

  /** Also captures `uri` (an unregistered redirect URI a module tries, to see if the server uses it). */
  captureUri(uri: string): void {
    this.clientUris.add(uri);
  }

  /** Starts the browser now (a module whose server-side state is short-lived opens pages at once). */
  async ready(): Promise<void> {
    this.browser ??= launchBrowser(this.config);
    await this.browser;
  }

  /** A fresh browser profile for the module, closed when the module ends. */
  async userAgent(t: ModuleContext): Promise<UserAgent> {
    this.browser ??= launchBrowser(this.config);
    const agent = await UserAgent.open(await this.browser, this.config, () => [...this.clientUris]);
    t.onEnd(() => agent.close());
    return agent;
  }

  async close(): Promise<void> {
    if (this.browser) await (await this.browser).close();
  }
}
