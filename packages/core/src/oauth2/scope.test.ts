import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseScope, scopeIncludes } from './scope.js';

/** The outcome of a scope function: its answer, or the error code it threw. */
function outcome(run: () => unknown): unknown {
  try {
    return run();
  } catch (error) {
    return (error as { code?: unknown }).code;
  }
}

describe('scopeIncludes', () => {
  it('answers as parseScope(scope).includes(token), refusing the same scopes', () => {
    const piece = fc.constantFrom(
      'openid',
      'offline_access',
      'open',
      'id',
      'a',
      ' ',
      '  ',
      '"',
      '\\',
      '\t',
      'é',
      '~',
    );
    const scope = fc.array(piece, { maxLength: 10 }).map((pieces) => pieces.join(''));
    const token = fc.constantFrom('openid', 'offline_access', 'a', 'open');
    fc.assert(
      fc.property(scope, token, (text, wanted) => {
        expect(outcome(() => scopeIncludes(text, wanted))).toEqual(
          outcome(() => parseScope(text).includes(wanted)),
        );
      }),
      { numRuns: 2000 },
    );
  });

  it('finds whole tokens only', () => {
    expect(scopeIncludes('openid profile', 'openid')).toBe(true);
    expect(scopeIncludes('profile openid', 'openid')).toBe(true);
    expect(scopeIncludes('openidx profile', 'openid')).toBe(false);
    expect(scopeIncludes('', 'openid')).toBe(false);
    expect(() => scopeIncludes('openid "x"', 'openid')).toThrow();
  });
});
