import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formPairs, Params } from './form.js';

/** What `URLSearchParams` makes of a text, as alternating names and values. */
function searchParamsPairs(text: string): string[] {
  const pairs: string[] = [];
  for (const [name, value] of new URLSearchParams(text)) pairs.push(name, value);
  return pairs;
}

// Texts made of what matters to the parser: separators, "+", percent escapes (valid, stray, and
// of bytes that are no UTF-8), a leading "?", and characters beyond ASCII.
const piece = fc.constantFrom(
  'a',
  'b',
  '=',
  '&',
  '+',
  '?',
  ' ',
  '%',
  '%2',
  '%41',
  '%2B',
  '%26',
  '%3D',
  '%C3%A9',
  '%E2%82%AC',
  '%FF',
  '%C3',
  '%ED%A0%80',
  '%EF%BB%BF',
  '%zz',
  'é',
  '€',
  '😀',
);
const formText = fc.array(piece, { maxLength: 24 }).map((pieces) => pieces.join(''));

describe('formPairs', () => {
  it('parses every text exactly as URLSearchParams does', () => {
    fc.assert(
      fc.property(formText, (text) => {
        expect(formPairs(text)).toEqual(searchParamsPairs(text));
      }),
      { numRuns: 3000 },
    );
  });

  it('parses a token request', () => {
    expect(
      formPairs('grant_type=authorization_code&code=abc&redirect_uri=https%3A%2F%2Fc.example%2Fcb&x'),
    ).toEqual([
      'grant_type',
      'authorization_code',
      'code',
      'abc',
      'redirect_uri',
      'https://c.example/cb',
      'x',
      '',
    ]);
  });

  it('looks at each character a bounded number of times, whatever the text', () => {
    // Pairs without "=", then one far away: the search for "=" is not repeated per pair.
    const text = `${'a&'.repeat(50_000)}b=c`;
    expect(formPairs(text)).toEqual(searchParamsPairs(text));
  });
});

describe('Params', () => {
  it('refuses a repeated parameter, and treats an empty one as omitted (RFC 6749 §3.1)', () => {
    const params = Params.fromForm('a=1&b=&a=2&c=3');
    expect(() => params.get('a')).toThrow(/repeated/);
    expect(params.get('b')).toBeUndefined();
    expect(params.has('b')).toBe(true);
    expect(params.get('c')).toBe('3');
    expect(params.has('d')).toBe(false);
    expect(() => params.require('d')).toThrow(/missing/);
  });

  it('answers the same for a long list (a map) as for a short one (a scan)', () => {
    const names = Array.from({ length: 40 }, (_, i) => `p${i}`);
    const params = Params.fromForm(`${names.map((n) => `${n}=v${n}`).join('&')}&p3=again`);
    expect(params.get('p0')).toBe('vp0');
    expect(params.get('p39')).toBe('vp39');
    expect(() => params.get('p3')).toThrow(/repeated/);
    expect(params.has('p3')).toBe(true);
    expect(params.has('q')).toBe(false);
  });

  it('gives every non-empty value of a repeatable parameter, in order', () => {
    const params = Params.fromForm('resource=https%3A%2F%2Fa&resource=&resource=https%3A%2F%2Fb');
    expect(params.getAll('resource')).toEqual(['https://a', 'https://b']);
    expect(params.getAll('none')).toEqual([]);
  });

  it('sets a parameter as URLSearchParams.set does', () => {
    const params = new Params(new URLSearchParams('a=1&b=2&a=3'));
    const set = params.with('a', 'x');
    expect(set.get('a')).toBe('x');
    expect(set.get('b')).toBe('2');
    expect(() => params.get('a')).toThrow(/repeated/);
    expect(set.with('c', 'y').getAll('c')).toEqual(['y']);
  });

  it('refuses values no engine should store, when read', () => {
    const params = Params.fromForm('state=a%00b&password=a%00b');
    expect(() => params.get('state')).toThrow(/contains/);
    expect(params.get('password')).toBe('a\u0000b');
  });

  it('gives a value as sent, unchecked, for echoing it: none when absent, empty or repeated', () => {
    const params = Params.fromForm('state=a%00b&empty=&twice=1&twice=2');
    expect(params.asSent('state')).toBe('a\u0000b');
    expect(params.asSent('empty')).toBeUndefined();
    expect(params.asSent('twice')).toBeUndefined();
    expect(params.asSent('absent')).toBeUndefined();
  });
});
