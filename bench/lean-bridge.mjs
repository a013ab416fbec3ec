/**
 * EXPERIMENT, not shipped: a leaner Node ⇄ Web bridge than `@gatehouse/core/node`'s, used only by
 * the `express-lean` bench server to measure what the bridge costs (see bench/RESULTS.md). Two
 * differences: (1) small request bodies are read into memory before the `Request` is built, and no
 * AbortController or listeners are attached; (2) a response whose body is complete after the first
 * chunk is sent with `Content-Length` in one `res.end()`, i.e. one write instead of a chunked body
 * plus a terminating chunk in a later tick. Larger bodies fall back to streaming.
 */
const MAX_BUFFERED = 65_536;

/** Builds a Web Request from an Express request, buffering a small body. */
export async function leanRequest(req, { origin, mountPath = '', ignoreBody = false }) {
  const headers = new Headers();
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i], raw[i + 1]);
  const url = `${origin}${mountPath}${req.url}`;
  const method = req.method;
  if (method === 'GET' || method === 'HEAD' || ignoreBody) return new Request(url, { method, headers });
  const chunks = [];
  let size = 0;
  for await (const chunk of req) {
    size += chunk.length;
    if (size > MAX_BUFFERED + 1) break;
    chunks.push(chunk);
  }
  return new Request(url, { method, headers, body: Buffer.concat(chunks) });
}

/** Sends a Web Response, in one write when the body is complete after its first chunk. */
export async function leanSend(res, response) {
  const headers = {};
  for (const [name, value] of response.headers) if (name !== 'set-cookie') headers[name] = value;
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) headers['set-cookie'] = cookies;
  if (!response.body) {
    res.writeHead(response.status, headers);
    res.end();
    return;
  }
  const reader = response.body.getReader();
  const first = await reader.read();
  const second = first.done ? first : await reader.read();
  if (second.done) {
    const body = first.done ? Buffer.alloc(0) : first.value;
    headers['content-length'] = String(body.byteLength);
    res.writeHead(response.status, headers);
    res.end(body);
    return;
  }
  res.writeHead(response.status, headers);
  res.write(first.value);
  res.write(second.value);
  for (;;) {
    const next = await reader.read();
    if (next.done) break;
    res.write(next.value);
  }
  res.end();
}
