/**
 * A browser made of `fetch` for end-to-end sign-ins without Chromium: keeps cookies (one jar: every
 * test server is one origin), follows redirects itself, and fills in the demo's login form (the
 * documented HTML contract: a POST form with hidden fields, `username` and `password`).
 */
export class HttpBrowser {
  readonly #cookies = new Map<string, string>();

  /** One request with the jar's cookies, never following redirects. */
  async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.#cookies.size > 0) {
      headers.set('cookie', [...this.#cookies].map(([name, value]) => `${name}=${value}`).join('; '));
    }
    const response = await fetch(url, { ...init, headers, redirect: 'manual' });
    for (const header of response.headers.getSetCookie()) {
      const [pair = ''] = header.split(';');
      const index = pair.indexOf('=');
      const name = pair.slice(0, index).trim();
      const value = pair.slice(index + 1).trim();
      if (value === '' || /;\s*max-age=0/i.test(header)) this.#cookies.delete(name);
      else this.#cookies.set(name, value);
    }
    return response;
  }

  /**
   * Navigates to `url` as a user would: follows redirects, signs in with `credentials` when the
   * login page appears, and stops at the first answer that is neither (or once `stopAt` matches a
   * redirect target, without requesting it). Returns the last URL and its response (if requested).
   */
  async navigate(
    url: string,
    credentials: { username: string; password: string },
    stopAt: (url: URL) => boolean = () => false,
  ): Promise<{ url: URL; response?: Response }> {
    let location = new URL(url);
    const navigation = { Accept: 'text/html', 'Sec-Fetch-Site': 'same-origin', 'Sec-Fetch-Mode': 'navigate' };
    for (let hop = 0; hop < 12; hop++) {
      if (stopAt(location)) return { url: location };
      let response = await this.fetch(location.href, { headers: navigation });
      if (response.status === 200 && /^text\/html/.test(response.headers.get('content-type') ?? '')) {
        const html = await response.text();
        const form = loginForm(html);
        if (!form) return { url: location, response: new Response(html, response) };
        response = await this.fetch(new URL(form.action, location).href, {
          method: 'POST',
          headers: {
            'Content-Type': 'application/x-www-form-urlencoded',
            Origin: location.origin,
            'Sec-Fetch-Site': 'same-origin',
          },
          body: new URLSearchParams({ ...form.fields, ...credentials }),
        });
      }
      const next = response.headers.get('location');
      if (response.status < 300 || response.status > 399 || next === null) return { url: location, response };
      location = new URL(next, location);
    }
    throw new Error(`too many redirects, last ${location.href}`);
  }
}

const decodeEntities = (text: string) =>
  text.replace(
    /&(amp|lt|gt|quot|#39|#96);/g,
    (_, entity: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", '#96': '`' })[entity]!,
  );

/** The login form of a page (its action and hidden fields), or `undefined` for another page. */
function loginForm(html: string): { action: string; fields: Record<string, string> } | undefined {
  const form = /<form\b[^>]*\bmethod="post"[^>]*\baction="([^"]*)"/i.exec(html);
  if (!form || !/\bname="username"/.test(html) || !/\bname="password"/.test(html)) return undefined;
  const fields: Record<string, string> = {};
  for (const input of html.matchAll(/<input\b[^>]*>/gi)) {
    const tag = input[0];
    if (!/\btype="hidden"/i.test(tag)) continue;
    const name = /\bname="([^"]*)"/i.exec(tag)?.[1];
    const value = /\bvalue="([^"]*)"/i.exec(tag)?.[1] ?? '';
    if (name !== undefined) fields[decodeEntities(name)] = decodeEntities(value);
  }
  return { action: decodeEntities(form[1]!), fields };
}
