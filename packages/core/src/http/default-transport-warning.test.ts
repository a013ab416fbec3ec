/**
 * Issue 27 item 3: on a runtime whose default transport cannot check the addresses a host name
 * resolves to, `createGatehouse` says so once, at creation, when anonymous callers can name URLs.
 */
import { vi } from 'vitest';

vi.mock('./default-transport.js', async () => {
  const { runtimeFetch } = await import('./guarded-fetch.js');
  return { defaultTransport: () => ({ fetch: runtimeFetch, checksResolvedAddresses: false }) };
});

import { describe, expect, it } from 'vitest';
import { type TestOptions, testInstance } from '../../test/fixtures';

async function warnings(options: TestOptions): Promise<string[]> {
  const warned: string[] = [];
  await testInstance({ logger: { warn: (message) => warned.push(message), error() {} }, ...options });
  return warned.filter((message) => message.includes('resolves to'));
}

describe('creating an instance where names cannot be checked', () => {
  it('warns once when metadata documents or self-registered key sets use the default transport', async () => {
    const documents = await warnings({ clientMetadataDocuments: {} });
    expect(documents).toHaveLength(1);
    expect(documents[0]).toMatch(/clientMetadataDocuments and clientJwks/);
    expect(await warnings({ dynamicRegistration: {} })).toEqual([
      expect.stringMatching(/gatehouse: clientJwks fetch URLs that anonymous callers choose/),
    ]);
  });

  it('stays silent without anonymous URLs, or with transports of the host', async () => {
    const own = async () => new Response('{}');
    expect(await warnings({})).toEqual([]);
    expect(await warnings({ clientMetadataDocuments: { fetch: own }, clientJwks: { fetch: own } })).toEqual(
      [],
    );
  });
});
