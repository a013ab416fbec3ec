import { describe, expect, it } from 'vitest';
import { RECORDED_TEXT_LIMIT, recordedText } from './recorded-text.js';

describe('recordedText', () => {
  it('keeps a value within the limit as it is', () => {
    const value = 'x'.repeat(RECORDED_TEXT_LIMIT);
    expect(recordedText(value)).toBe(value);
  });

  it('cuts a longer value to exactly the limit, ending with how long it was', () => {
    const cut = recordedText(`${'a'.repeat(1000)}tail`);
    expect(cut).toHaveLength(RECORDED_TEXT_LIMIT);
    expect(cut).toMatch(/^a+…\[cut from 1004 characters\]$/);
    expect(recordedText('y'.repeat(2000), 1024)).toHaveLength(1024);
  });

  it('changes nothing when applied again, so that every layer may apply it', () => {
    const once = recordedText('z'.repeat(70_000));
    expect(recordedText(once)).toBe(once);
  });

  it('never keeps half a surrogate pair', () => {
    for (let prefix = 0; prefix < 4; prefix++) {
      const cut = recordedText('p'.repeat(prefix) + '😀'.repeat(500));
      expect(cut.length).toBeLessThanOrEqual(RECORDED_TEXT_LIMIT);
      // A lone high surrogate would be followed by the marker's `…`, not by a low surrogate.
      expect(cut).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
    }
  });
});
