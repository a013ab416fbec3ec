/**
 * One Gatehouse server process for the scale-out tests: the demo instance on the engine chosen by
 * `GATEHOUSE_STORE` (see examples/demo/src/storage.ts), signing with the JWK in `GATEHOUSE_JWK`
 * (shared by every process), with the issuer of `DEMO_PORT` whatever port it really listens on.
 * With `GATEHOUSE_PUSHED_REVOCATIONS=1` the instance answers revocation from its pushed mirror,
 * otherwise it asks the engine on every bearer check.
 * `GET /demo/bearer-check` answers 204 for a bearer token that passes the check, else the check's
 * answer (401, 503). Prints `{"port": N}` once listening; exits on SIGTERM.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sendWebResponse, toWebRequest } from '@gatehousejs/core/node';
// The demo package is not a dependency of core: reached by path (only this test script uses it).
import { createDemo, storageFromEnv } from '../../../../examples/demo/src/index.js';

const storage = await storageFromEnv(process.env);
const demo = await createDemo({
  port: Number(process.env.DEMO_PORT),
  warn: () => {},
  overrides: {
    keys: [JSON.parse(process.env.GATEHOUSE_JWK!)],
    storage,
    storageTimeoutMs: 1000,
    // Otherwise per-request checks (the engines' default is the mirror): those tests expect a
    // revocation to hold on the other process at once.
    pushedRevocations: process.env.GATEHOUSE_PUSHED_REVOCATIONS === '1' ? { maxLagMs: 1000 } : false,
    logger: { warn() {}, error() {} },
  },
});

const server = createServer((req, res) => {
  const request = toWebRequest(req, { response: res });
  if (req.url === '/demo/bearer-check') {
    demo.gatehouse
      .authenticate(request, { schemes: ['bearer'] })
      .then((result) =>
        sendWebResponse(res, result.ok ? new Response(null, { status: 204 }) : result.response),
      )
      .catch(() => res.destroy());
    return;
  }
  demo.gatehouse
    .fetch(request)
    .then((response) => sendWebResponse(res, response))
    .catch(() => res.destroy());
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
});

process.once('SIGTERM', () => {
  server.closeAllConnections();
  server.close();
  void storage.close().finally(() => process.exit(0));
});
