import { answerOf, clientAddressOf } from '@gatehousejs/core/adapter';
import { describe, expect, it } from 'vitest';
import { authorizeUrl } from '../../test/browser-flow';
import { testInstance } from '../../test/fixtures';
import { bodyText } from '../http/body.js';
import { hostRequest } from '../http/host-request.js';
import { BufferedRequest } from './buffered-request.js';
import { RawHeaders } from './raw-headers.js';

const URL_ = 'https://as.example/demo/oauth2/v1/token';
const form = 'grant_type=refresh_token&refresh_token=abc';

function buffered(body: string | null = form, method = 'POST'): BufferedRequest {
  const headers = new Headers({ 'content-type': 'application/x-www-form-urlencoded' });
  return new BufferedRequest(method, URL_, headers, body === null ? null : new TextEncoder().encode(body));
}

/** The same request as undici builds it: every behaviour below must match it. */
function real(body: string | null = form, method = 'POST'): Request {
  return new Request(URL_, {
    method,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body,
  });
}

describe('BufferedRequest', () => {
  it('reads its body once, like a Request, by every body method', async () => {
    for (const make of [buffered, real]) {
      expect(await make().text()).toBe(form);
      expect(new TextDecoder().decode(await make().arrayBuffer())).toBe(form);
      expect(new TextDecoder().decode(await make().bytes())).toBe(form);
      expect(await make('{"a":[1]}').json()).toEqual({ a: [1] });
      await expect(make('{').json()).rejects.toThrow(SyntaxError);
      expect(Object.fromEntries((await make().formData()).entries())).toEqual({
        grant_type: 'refresh_token',
        refresh_token: 'abc',
      });
      expect(await new Response(make().body).text()).toBe(form);

      const once = make();
      expect(once.bodyUsed).toBe(false);
      await once.text();
      expect(once.bodyUsed).toBe(true);
      await expect(once.text()).rejects.toThrow(TypeError);
      await expect(once.arrayBuffer()).rejects.toThrow(TypeError);
      expect(() => once.clone()).toThrow(TypeError);
    }
  });

  it('decodes text as Fetch does: BOM dropped, invalid UTF-8 replaced', async () => {
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, 0x61, 0xff, 0x62]);
    const request = new BufferedRequest('POST', URL_, new Headers(), bytes);
    expect(await request.text()).toBe(await new Request(URL_, { method: 'POST', body: bytes }).text());
  });

  it('has a null body and empty reads when it carries no body, and is never "used"', async () => {
    for (const make of [() => buffered(null, 'GET'), () => real(null, 'GET')]) {
      const request = make();
      expect(request.body).toBeNull();
      expect(await request.text()).toBe('');
      expect(await request.text()).toBe('');
      expect(request.bodyUsed).toBe(false);
    }
  });

  it('clones into an independent request', async () => {
    const original = buffered();
    const copy = original.clone();
    copy.headers.set('x-copy', '1');
    expect(await copy.text()).toBe(form);
    expect(original.headers.has('x-copy')).toBe(false);
    expect(await original.text()).toBe(form);
  });

  it('hands out copies of its bytes, so a reader cannot change the body', async () => {
    const bytes = new TextEncoder().encode('abc');
    const request = new BufferedRequest('POST', URL_, new Headers(), bytes);
    const copy = request.clone();
    new Uint8Array(await request.arrayBuffer()).fill(0);
    expect(await copy.text()).toBe('abc');
  });

  it('answers every other member from a real Request, keeping the body state', async () => {
    const controller = new AbortController();
    const request = new BufferedRequest('POST', URL_, new Headers(), new TextEncoder().encode('x'), {
      signal: controller.signal,
      clientAddress: '203.0.113.5',
    });
    expect(request.signal).toBe(controller.signal);
    expect(clientAddressOf(request)).toBe('203.0.113.5');
    expect(clientAddressOf(request.clone())).toBe('203.0.113.5');
    await request.text();
    expect(request.mode).toBe(real().mode);
    expect(request.cache).toBe('default');
    expect(request.bodyUsed).toBe(true);
    await expect(request.text()).rejects.toThrow(TypeError);
    expect(Object.prototype.toString.call(request)).toBe('[object Request]');

    const fresh = buffered();
    expect(fresh.credentials).toBe(real().credentials);
    expect(await fresh.text()).toBe(form);
    expect(fresh.bodyUsed).toBe(true);
    expect(new BufferedRequest('GET', URL_, new Headers(), null).signal.aborted).toBe(false);
  });

  it('can seed a real Request through its members', async () => {
    const copy = new Request(buffered().url, buffered());
    expect(copy.method).toBe('POST');
    expect(await copy.text()).toBe(form);
  });
});

describe('a BufferedRequest read by Gatehouse', () => {
  it('hands its body over at once, as text (no promise), and counts it as read', async () => {
    const request = buffered();
    expect(bodyText(request, 1000)).toBe(form);
    expect(request.bodyUsed).toBe(true);
    await expect(request.text()).rejects.toThrow(TypeError);
  });

  it('is read as any Request once its body was read through the Fetch members', async () => {
    const request = buffered();
    await request.text();
    expect(() => bodyText(request, 1000)).toThrow(/already read/);
    expect(bodyText(buffered(null, 'GET'), 1000)).toBe('');
  });
});

describe('a BufferedRequest and host code (issue 42)', () => {
  it('is no platform Request itself, and hands host code the real one it builds, once', async () => {
    const request = new BufferedRequest(
      'POST',
      URL_,
      new RawHeaders(['X-A', '1']),
      new TextEncoder().encode(form),
      {
        clientAddress: '203.0.113.7',
      },
    );
    expect(request).not.toBeInstanceOf(Request);
    const real = hostRequest(request);
    expect(real).toBeInstanceOf(Request);
    expect(hostRequest(request)).toBe(real);
    expect(clientAddressOf(real)).toBe('203.0.113.7');
    expect(real.headers.get('x-a')).toBe('1');
    expect(await new Request(real).text()).toBe(form);
    const plain = new Request(URL_);
    expect(hostRequest(plain)).toBe(plain);
  });

  it('is a platform Request where Gatehouse calls the host: currentUser and rateLimit.clientAddress', async () => {
    const seen: string[] = [];
    const t = await testInstance({
      interactions: {
        currentUser: (request) => {
          seen.push(`currentUser ${request instanceof Request} ${new Request(request).method}`);
          return null;
        },
      },
      rateLimit: {
        clientAddress: (request) => {
          seen.push(`clientAddress ${request instanceof Request}`);
          return '198.51.100.4';
        },
      },
    });
    const light = new BufferedRequest('GET', authorizeUrl(), new RawHeaders(['Accept', 'text/html']), null);
    const answer = await answerOf(t.gatehouse, light);
    expect(answer.status).toBeLessThan(500);
    expect(seen).toContain('currentUser true GET');
    expect(seen).toContain('clientAddress true');
    expect(seen.filter((entry) => entry.endsWith('false'))).toEqual([]);
  });
});
