import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RawHeaders } from './raw-headers.js';

/** What the bridge copied before: every field appended to undici's Headers (pseudo-headers left out). */
function copied(raw: readonly string[]): Headers {
  const headers = new Headers();
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if (!raw[i]!.startsWith(':')) headers.append(raw[i]!, raw[i + 1]!);
  }
  return headers;
}

const NAMES = [
  'Authorization',
  'authorization',
  'Content-Type',
  'Cookie',
  'X-A',
  'x-a',
  'Set-Cookie',
  'Host',
];
const fieldName = fc.constantFrom(...NAMES);
// Values as Node's parser hands them over: visible ASCII and inner spaces/tabs, sometimes padded.
const fieldValue = fc
  .tuple(
    fc.constantFrom('', ' ', '\t'),
    fc.stringMatching(/^[!-~]([ \t!-~]*[!-~])?$/),
    fc.constantFrom('', ' '),
  )
  .map(([a, b, c]) => a + b + c);
const rawList = fc
  .array(fc.tuple(fieldName, fieldValue), { maxLength: 8 })
  .map((pairs) => [':path', '/x', ...pairs.flat()]);

describe('RawHeaders', () => {
  it('answers get and has exactly as a full copy into Headers would, for any field list', () => {
    fc.assert(
      fc.property(rawList, fc.constantFrom(...NAMES, 'missing', 'AUTHORIZATION'), (raw, name) => {
        const reference = copied(raw);
        const lazy = new RawHeaders(raw);
        expect(lazy.get(name)).toBe(reference.get(name));
        expect(lazy.has(name)).toBe(reference.has(name));
        // After any other use it is the full copy.
        expect([...lazy]).toEqual([...reference]);
        expect(lazy.getSetCookie()).toEqual(reference.getSetCookie());
        expect(lazy.get(name)).toBe(reference.get(name));
      }),
      { numRuns: 500 },
    );
  });

  it('refuses names that are no field names, as Headers does', () => {
    const lazy = new RawHeaders(['Host', 'a']);
    for (const name of ['', 'a b', 'é', ':path', 'a\n']) {
      expect(() => lazy.get(name)).toThrow(TypeError);
      expect(() => new Headers().get(name)).toThrow(TypeError);
    }
  });

  it('takes changes after copying the fields, keeping the received ones', () => {
    const lazy = new RawHeaders(['Content-Length', '5', 'Transfer-Encoding', 'chunked']);
    lazy.delete('transfer-encoding');
    lazy.set('content-length', '0');
    lazy.append('x-added', '1');
    expect(Object.fromEntries(lazy)).toEqual({ 'content-length': '0', 'x-added': '1' });
    const seen: string[] = [];
    lazy.forEach((_value, name) => {
      seen.push(name);
    });
    expect(seen).toEqual(['content-length', 'x-added']);
    expect([...lazy.keys()]).toEqual(seen);
    expect([...lazy.values()]).toEqual(['0', '1']);
  });

  it('seeds a real Request and a copy', async () => {
    const lazy = new RawHeaders(['Authorization', 'Bearer t', 'X-A', '1', 'x-a', '2']);
    const request = new Request('http://localhost/', { headers: lazy });
    expect(request.headers.get('authorization')).toBe('Bearer t');
    expect(new Headers(new RawHeaders(['X-A', '1', 'x-a', '2'])).get('x-a')).toBe('1, 2');
  });

  it('is no Headers: native constructors copy it as pairs, on every runtime alike', () => {
    const lazy = new RawHeaders(['Authorization', 'Bearer t', ':path', '/']);
    // A Headers subclass with a list of its own arrived empty where Bun copies the internal list.
    expect(lazy).not.toBeInstanceOf(Headers);
    expect(lazy.pairs()).toEqual([['Authorization', 'Bearer t']]);
    expect([...new Headers(lazy)]).toEqual([['authorization', 'Bearer t']]);
  });
});
