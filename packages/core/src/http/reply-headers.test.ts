import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Reply, toResponse } from './reply.js';
import { ReplyHeaders, replyFields, replyHeaders } from './reply-headers.js';

const NAMES = [
  'Cache-Control',
  'cache-control',
  'Vary',
  'Content-Type',
  'Set-Cookie',
  'X-A',
  'x-a',
  'Location',
];
const VALUES = ['no-store', ' Origin ', '\tpadded\t', 'a, b', 'é', 'x\ny', '', 'ünï', 'emoji 😀', 'nul\0'];
type Operation =
  | { readonly kind: 'set' | 'append'; readonly name: string; readonly value: string }
  | { readonly kind: 'delete' | 'get' | 'has'; readonly name: string };
const operation: fc.Arbitrary<Operation> = fc.oneof(
  fc.record({
    kind: fc.constantFrom('set' as const, 'append' as const),
    name: fc.constantFrom(...NAMES),
    value: fc.constantFrom(...VALUES),
  }),
  fc.record({
    kind: fc.constantFrom('delete' as const, 'get' as const, 'has' as const),
    name: fc.constantFrom(...NAMES),
  }),
);

/** The outcome of one operation: its result, or the kind of error it threw. */
function apply(headers: Headers, op: Operation): unknown {
  try {
    if (op.kind === 'set') return headers.set(op.name, op.value);
    if (op.kind === 'append') return headers.append(op.name, op.value);
    if (op.kind === 'delete') return headers.delete(op.name);
    return op.kind === 'get' ? headers.get(op.name) : headers.has(op.name);
  } catch (error) {
    return (error as Error).name;
  }
}

describe('ReplyHeaders', () => {
  it('answers every operation exactly as Headers does, and ends with the same fields', () => {
    fc.assert(
      fc.property(fc.array(operation, { maxLength: 12 }), (operations) => {
        const reference = new Headers();
        const listed = new ReplyHeaders();
        for (const op of operations) expect(apply(listed, op)).toEqual(apply(reference, op));
        // The list, where it still is one, is what iterating gives, in Fetch's order.
        const fields = replyFields(listed);
        if (fields !== undefined) {
          const pairs: [string, string][] = [];
          for (let i = 0; i < fields.length; i += 2) pairs.push([fields[i]!, fields[i + 1]!]);
          expect(pairs).toEqual([...reference]);
        }
        expect([...listed]).toEqual([...reference]);
        expect(listed.getSetCookie()).toEqual(reference.getSetCookie());
        expect(replyFields(listed)).toBeUndefined();
      }),
      { numRuns: 500 },
    );
  });

  it('refuses names that are no field names, as Headers does', () => {
    for (const name of ['', 'a b', 'é', ':path', 'a\n']) {
      expect(() => new ReplyHeaders().get(name)).toThrow(TypeError);
      expect(() => new ReplyHeaders().set(name, 'x')).toThrow(TypeError);
      expect(() => new ReplyHeaders().append(name, 'x')).toThrow(TypeError);
    }
  });

  it('keeps the fields of Gatehouse answers as a list, sorted by name', () => {
    const headers = new ReplyHeaders();
    headers.set('Pragma', 'no-cache');
    headers.set('Cache-Control', 'no-store');
    headers.set('Content-Type', 'application/json;charset=UTF-8');
    headers.set('Vary', 'Origin');
    expect(replyFields(headers)).toEqual([
      'cache-control',
      'no-store',
      'content-type',
      'application/json;charset=UTF-8',
      'pragma',
      'no-cache',
      'vary',
      'Origin',
    ]);
    expect(headers).not.toBeInstanceOf(Headers);
  });

  it('is a platform Headers once host code reads Reply.headers, with every field, and stays one view', () => {
    const listed = replyHeaders({ Vary: 'Origin', 'X-A': 'b' });
    const reply = new Reply(200, listed, null);
    const headers = reply.headers;
    expect(headers).toBeInstanceOf(Headers);
    expect([...new Headers(headers)]).toEqual([
      ['vary', 'Origin'],
      ['x-a', 'b'],
    ]);
    expect(reply.headers).toBe(headers);
    headers.set('x-b', 'c');
    expect(listed.get('x-b')).toBe('c');
    expect(replyFields(listed)).toBeUndefined();
  });

  it('is handed to a native Response with every field', () => {
    const reply = new Reply(200, replyHeaders({ Vary: 'Origin', 'X-A': 'b' }), null);
    expect([...toResponse(reply).headers]).toEqual([
      ['vary', 'Origin'],
      ['x-a', 'b'],
    ]);
    const filled = replyHeaders({ Vary: 'Origin' });
    filled.append('Set-Cookie', 'a=b');
    expect([...toResponse(new Reply(200, filled, null)).headers]).toEqual([
      ['set-cookie', 'a=b'],
      ['vary', 'Origin'],
    ]);
  });

  it('takes a record as Headers does, and pairs or a Headers as they are', () => {
    const record = { 'X-A': 'one', 'x-a': 'two', Vary: ' Origin ' };
    expect([...replyHeaders(record)]).toEqual([...new Headers(record)]);
    expect(replyHeaders([['a', 'b']])).not.toBeInstanceOf(ReplyHeaders);
    expect([...replyHeaders(new Headers({ a: 'b' }))]).toEqual([['a', 'b']]);
    expect(replyFields(new Headers())).toBeUndefined();
  });
});
