/**
 * A small HTTP server the tool runs for the server under test to fetch from: request objects by
 * reference (`request_uri`), client ID metadata documents, a client's JWKS. Listens on loopback
 * (or the host of `base`); closed when the module ends.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { ModuleContext } from './context.js';

/** What the server answers at one path. */
export interface Served {
  readonly status?: number;
  readonly contentType: string;
  readonly body: string;
  /** A redirect target (then `status` 302 by default). */
  readonly location?: string;
}

/** A running document server: its base URL, what it served and to whom. */
export interface DocumentServer {
  readonly base: string;
  /** Serves `content` at `path` (from now on). */
  put(path: string, content: Served): string;
  /** The paths the server under test fetched, in order. */
  readonly fetched: string[];
}

/** Starts a document server for this module (`base`: e.g. `http://127.0.0.1:0`, port 0 for any). */
export async function serveDocuments(t: ModuleContext, base = 'http://127.0.0.1:0'): Promise<DocumentServer> {
  const routes = new Map<string, Served>();
  const fetched: string[] = [];
  const url = new URL(base);
  const server = createServer((request: IncomingMessage, response) => {
    const path = new URL(request.url ?? '/', 'http://x').pathname;
    fetched.push(path);
    const content = routes.get(path);
    if (!content) {
      response.writeHead(404).end();
      return;
    }
    const headers: Record<string, string> = { 'content-type': content.contentType };
    if (content.location) headers.location = content.location;
    response.writeHead(content.status ?? (content.location ? 302 : 200), headers).end(content.body);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(Number(url.port || 0), url.hostname.replace(/^\[|\]$/g, ''), () => resolve());
  });
  t.onEnd(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  );
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const origin = `${url.protocol}//${url.hostname}:${port}`;
  return {
    base: origin,
    fetched,
    put(path, content) {
      routes.set(path, content);
      return origin + path;
    },
  };
}
