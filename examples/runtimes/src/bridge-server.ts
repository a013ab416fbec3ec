/**
 * The Node bridge of `@gatehousejs/core/node` on a runtime's `node:http` (Bun, Deno): every
 * request it hands to host code is a platform `Request` there too (issue 42). Serves the probe of
 * `packages/core/test/platform-request-probe.ts` behind each way a host gets a request:
 *   /to/…     `toWebRequest` (a GET is built from the bridge's light request on first use; a body is streamed)
 *   /read/…   `readWebRequest` (a small body read into memory first, then the real request built)
 *   /headers  `toWebRequest` with `ignoreBody`
 *   /reply    `Reply.headers` of a Gatehouse answer (`ProtocolError.toReply()`), copied by `Headers` and `Response`
 *   /ready    200, once listening
 * `PORT` (default 3000) and `HOST` (default 127.0.0.1) choose where it listens.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { ProtocolError } from '@gatehousejs/core';
import { readWebRequest, sendWebResponse, toWebRequest } from '@gatehousejs/core/node';
import { platformRequestProbe } from '../../../packages/core/test/platform-request-probe.js';

const port = Number(process.env.PORT ?? 3000);
const host = process.env.HOST ?? '127.0.0.1';
const probe = platformRequestProbe();

function requestFor(req: IncomingMessage, res: ServerResponse): Request | Promise<Request> {
  const path = req.url ?? '/';
  if (path.startsWith('/read/')) return readWebRequest(req, { response: res });
  if (path.startsWith('/headers')) return toWebRequest(req, { ignoreBody: true });
  return toWebRequest(req, { response: res });
}

function replyHeaders(): Response {
  const headers = new ProtocolError('invalid_request', 'A probe.').toReply().headers;
  return Response.json({
    isHeaders: headers instanceof Headers,
    copied: Object.fromEntries(new Headers(headers)),
    inResponse: Object.fromEntries(new Response(null, { headers }).headers),
  });
}

const server = createServer(async (req, res) => {
  try {
    if (req.url === '/ready') return void (await sendWebResponse(res, new Response('ready')));
    if (req.url === '/reply') return void (await sendWebResponse(res, replyHeaders()));
    await sendWebResponse(res, await probe(await requestFor(req, res)));
  } catch (error) {
    res.writeHead(500).end(String(error));
  }
});
server.listen(port, host, () => console.log(`node bridge listening on http://${host}:${port}`));

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    server.close();
    process.exit(0);
  });
}
