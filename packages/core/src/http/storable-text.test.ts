import { describe, expect, it } from 'vitest';
import { expectUnstorableInputRefused } from '../../test/unstorable-input';
import { unstorableText } from './storable-text';

describe('control characters and unpaired surrogates', () => {
  it('are refused with 400 before any storage call, over HTTP (memory engine)', async () => {
    await expectUnstorableInputRefused();
  });

  it('are told apart from well-formed text, astral characters included', () => {
    expect(unstorableText('client-1 été 😀 \u200e')).toBeUndefined();
    expect(unstorableText('a\u0000')).toBe('a control character');
    expect(unstorableText('tab\there')).toBe('a control character');
    expect(unstorableText('\u0085')).toBe('a control character');
    expect(unstorableText('\ud800')).toBe('an unpaired surrogate');
    expect(unstorableText('x\udc00y')).toBe('an unpaired surrogate');
    expect(unstorableText('\ud83d\ude00\ud83d')).toBe('an unpaired surrogate');
  });
});
