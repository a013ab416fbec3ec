import { describe, expect, it } from 'vitest';
import { defaultTransport, transportFor } from './default-transport.js';
import { runtimeFetch } from './guarded-fetch.js';

describe('the default outbound transport (issue 27 item 3)', () => {
  it('checks resolved addresses on Node.js', () => {
    expect(defaultTransport().checksResolvedAddresses).toBe(true);
    expect(defaultTransport().fetch).not.toBe(runtimeFetch);
  });

  it("is the runtime's fetch, saying it checks no names, on Bun, Deno, Workers and without getBuiltinModule", () => {
    const { process } = globalThis;
    for (const global of [
      { Bun: {}, process },
      { Deno: {}, process },
      { navigator: { userAgent: 'Cloudflare-Workers' }, process },
      { process: { versions: { node: '20.0.0' } } },
      {},
    ]) {
      const transport = transportFor(global);
      expect(transport.checksResolvedAddresses).toBe(false);
      expect(transport.fetch).toBe(runtimeFetch);
    }
  });
});
