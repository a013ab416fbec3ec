/**
 * An instance keeps what its adapters use beyond the public interface (its fast paths) in a map of
 * one module, keyed by the instance (packages/core/src/protect/instance-internals.ts). That works
 * only if every entry of a build shares that module: an instance made through the main entry must
 * be found by the adapter entry, in the ESM build and in the CJS build alike (both split shared
 * code into chunks). Found, `answerOf` answers discovery with a `Reply` (text written directly);
 * not found, it would go through the public `fetch` and answer a `Response`.
 */
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { packagesBuilt } from '../support/pack';

const dist = fileURLToPath(new URL('../../packages/core/dist/', import.meta.url));
const require = createRequire(import.meta.url);

type Core = typeof import('@gatehousejs/core');
type Adapter = typeof import('@gatehousejs/core/adapter');

async function discoveryAnswer(core: Core, adapter: Adapter) {
  const instance = core.createGatehouse({
    issuer: 'http://localhost:3000/demo',
    keys: [await core.generateKeys('ES256')],
    clients: core.memoryClientStore([]),
    users: core.memoryUserStore([]),
    logger: { warn() {}, error() {} },
  });
  const request = new Request('http://localhost:3000/demo/.well-known/openid-configuration');
  return { answer: await adapter.answerOf(instance, request), adapter };
}

describe.skipIf(!packagesBuilt)('the build entries of @gatehousejs/core', () => {
  it('share an instance’s internals across the main and adapter entries of the CJS build', async () => {
    const { answer, adapter } = await discoveryAnswer(
      require(`${dist}index.cjs`) as Core,
      require(`${dist}adapter.cjs`) as Adapter,
    );
    expect(answer).not.toBeInstanceOf(Response);
    expect(adapter.isReply(answer)).toBe(true);
  });

  it('share an instance’s internals across the main and adapter entries of the ESM build', async () => {
    const { answer, adapter } = await discoveryAnswer(
      (await import(`${dist}index.js`)) as Core,
      (await import(`${dist}adapter.js`)) as Adapter,
    );
    expect(answer).not.toBeInstanceOf(Response);
    expect(adapter.isReply(answer)).toBe(true);
  });

  it('fall back to the public fetch for an instance of the other build (slower, still right)', async () => {
    const core = require(`${dist}index.cjs`) as Core;
    const esmAdapter = (await import(`${dist}adapter.js`)) as Adapter;
    const { answer } = await discoveryAnswer(core, esmAdapter);
    expect(answer).toBeInstanceOf(Response);
    expect((answer as Response).status).toBe(200);
  });
});
