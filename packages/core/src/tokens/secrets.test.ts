import { generateClientSecret } from '@gatehousejs/core';
import { describe, expect, it } from 'vitest';

describe('random secrets', () => {
  it('are 256-bit base64url strings, never repeated across pool refills', () => {
    // 20,000 secrets of 32 bytes draw the 4 KiB pool ~156 times over.
    const secrets = Array.from({ length: 20_000 }, () => generateClientSecret());
    expect(new Set(secrets).size).toBe(secrets.length);
    for (const secret of secrets.slice(0, 100)) expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('draw every byte value about equally often (no zeroed or reused pool bytes)', () => {
    const counts = new Array<number>(256).fill(0);
    for (let i = 0; i < 8_000; i++) {
      for (const byte of Buffer.from(generateClientSecret(), 'base64url')) counts[byte]!++;
    }
    // 256,000 bytes: 1,000 expected per value; a wiped (zero) or repeated region would skew it.
    const chiSquare = counts.reduce((sum, n) => sum + (n - 1000) ** 2 / 1000, 0);
    expect(chiSquare).toBeLessThan(400); // 255 degrees of freedom: p < 1e-7 above this
  });
});
