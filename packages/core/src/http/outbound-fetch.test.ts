import { describe, expect, it } from 'vitest';
import { checkOutboundUrl, fetchJson, isPrivateHost, OutboundFetchError } from './outbound-fetch.js';

const policy = (fetch: typeof globalThis.fetch, maxBytes = 1024) => ({
  timeoutMs: 1000,
  maxBytes,
  allowPrivateNetwork: false,
  fetch,
});

describe('outbound fetches to client-registered URLs', () => {
  it('tells private-network hosts from public ones, however the address is spelt', () => {
    const host = (url: string) => new URL(url).hostname;
    for (const url of [
      'https://localhost/',
      'https://a.localhost/',
      'https://127.0.0.1/',
      'https://0x7f.1/', // 127.0.0.1 in hex, normalised by URL
      'https://2130706433/', // 127.0.0.1 as one number
      'https://10.1.2.3/',
      'https://172.16.0.1/',
      'https://192.168.1.1/',
      'https://169.254.169.254/',
      'https://100.64.0.1/',
      'https://0.0.0.0/',
      'https://224.0.0.1/',
      'https://[::1]/',
      'https://[::]/',
      'https://[fe80::1]/',
      'https://[fd12::1]/',
      'https://[::ffff:10.0.0.1]/',
      'https://printer.local/',
      'https://db.internal/',
      'https://intranet/',
    ]) {
      expect({ url, private: isPrivateHost(host(url)) }).toEqual({ url, private: true });
    }
    for (const url of [
      'https://example.com/',
      'https://8.8.8.8/',
      'https://[2001:db8::1]/',
      'https://172.32.0.1/',
    ]) {
      expect({ url, private: isPrivateHost(host(url)) }).toEqual({ url, private: false });
    }
  });

  it('refuses http except for loopback, credentials in the URL, and private hosts unless allowed', () => {
    const refused = (url: string, allowPrivateNetwork: boolean | string[] = false) =>
      expect(() => checkOutboundUrl(url, { allowPrivateNetwork })).toThrow(OutboundFetchError);
    refused('http://example.com/jwks');
    refused('ftp://example.com/jwks');
    refused('https://u:p@example.com/jwks');
    refused('https://10.0.0.1/jwks');
    refused('http://localhost/jwks');
    refused('https://10.0.0.1/jwks', ['10.0.0.2']);
    expect(checkOutboundUrl('http://localhost:8080/jwks', { allowPrivateNetwork: ['localhost'] }).host).toBe(
      'localhost:8080',
    );
    expect(checkOutboundUrl('https://10.0.0.1/jwks', { allowPrivateNetwork: true }).host).toBe('10.0.0.1');
    expect(checkOutboundUrl('https://example.com/jwks', { allowPrivateNetwork: false }).host).toBe(
      'example.com',
    );
  });

  it('reads at most maxBytes, even when the body streams without a Content-Length', async () => {
    const streamed = (size: number) =>
      (async () =>
        new Response(
          new ReadableStream({
            start(controller) {
              controller.enqueue(new TextEncoder().encode(`{"pad":"${'x'.repeat(size)}"}`));
              controller.close();
            },
          }),
        )) as typeof fetch;
    await expect(fetchJson('https://example.com/', policy(streamed(2000)))).rejects.toThrow(
      /larger than 1024/,
    );
    await expect(fetchJson('https://example.com/', policy(streamed(10)))).resolves.toEqual({
      pad: 'x'.repeat(10),
    });
  });

  it('does not follow redirects and refuses non-200 answers', async () => {
    let init: RequestInit | undefined;
    const redirecting = (async (_input: RequestInfo | URL, given?: RequestInit) => {
      init = given;
      return new Response('{}', { status: 301, headers: { Location: 'https://10.0.0.1/' } });
    }) as typeof fetch;
    await expect(fetchJson('https://example.com/', policy(redirecting))).rejects.toThrow(/answered 301/);
    expect(init?.redirect).toBe('manual');
  });
});
