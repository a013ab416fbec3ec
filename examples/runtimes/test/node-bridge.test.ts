// The Node bridge on Bun's and Deno's `node:http`: requests handed to host code are platform
// `Request`s, and `Reply.headers` a platform `Headers` (issue 42).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectPlatformRequests } from '../../../packages/core/test/adapter-kit.js';
import { type RunningTarget, startTarget } from '../../conformance/src/harness.js';
import { BRIDGE_TARGETS, probe, RUNTIMES } from '../src/runtimes.js';

for (const name of ['bun', 'deno'] as const) {
  const probed = probe(RUNTIMES[name]);
  const title = `node bridge on ${'skip' in probed ? name : probed.version}`;
  describe.skipIf('skip' in probed)(title, () => {
    let server: RunningTarget;
    beforeAll(async () => {
      server = await startTarget(BRIDGE_TARGETS[name]);
    });
    afterAll(() => server?.stop());

    it('hands host code platform Requests: toWebRequest and readWebRequest', async () => {
      await expectPlatformRequests(`${server.origin}/to/probe`);
      await expectPlatformRequests(`${server.origin}/read/probe`);
      const headers = await (await fetch(`${server.origin}/headers`, { headers: { 'X-Probe': 'h' } })).json();
      expect(headers).toMatchObject({
        isRequest: true,
        header: 'h',
        fetched: { method: 'GET', header: 'h' },
      });
    });

    it('gives host code a platform Headers in Reply.headers, copied whole by Headers and Response', async () => {
      const reply = await (await fetch(`${server.origin}/reply`)).json();
      expect(reply.isHeaders).toBe(true);
      expect(reply.copied).toMatchObject({
        'cache-control': 'no-store',
        'content-type': expect.stringContaining('json'),
      });
      expect(reply.inResponse).toEqual(reply.copied);
    });
  });
}
