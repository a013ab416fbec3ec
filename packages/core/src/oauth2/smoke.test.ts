import { describe, expect, it } from 'vitest';
import { issueTokens, testInstance } from '../../test/fixtures';

describe('smoke', () => {
  it('exchanges a minted code for a token set', async () => {
    const t = await testInstance();
    const tokens = await issueTokens(t);
    expect(tokens.access_token.split('.')).toHaveLength(3);
    expect(tokens.refresh_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});
