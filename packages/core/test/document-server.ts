import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Route = (request: IncomingMessage, response: ServerResponse) => void;

/**
 * A document server for outbound-fetch tests (client ID metadata documents, `jwks_uri` key sets):
 * a route per path on 127.0.0.1, how often each path was asked for, and how many connections
 * were open at once (the outbound connections the server under test held).
 */
export class DocumentServer {
  readonly hits = new Map<string, number>();
  readonly routes = new Map<string, Route>();
  #server: Server | undefined;
  origin = '';
  /** Connections open now, and the most open at once since the start. */
  openConnections = 0;
  maxOpenConnections = 0;

  async start(): Promise<void> {
    this.#server = createServer((request, response) => {
      const path = request.url ?? '/';
      this.hits.set(path, (this.hits.get(path) ?? 0) + 1);
      const route = this.routes.get(path);
      if (route) route(request, response);
      else response.writeHead(404).end();
    });
    this.#server.on('connection', (socket) => {
      this.openConnections++;
      this.maxOpenConnections = Math.max(this.maxOpenConnections, this.openConnections);
      socket.once('close', () => this.openConnections--);
    });
    await new Promise<void>((resolve) => this.#server!.listen(0, '127.0.0.1', resolve));
    this.origin = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.#server?.closeAllConnections();
    await new Promise((resolve) => this.#server?.close(resolve));
  }

  /** Serves `document` (JSON) at `path`, with extra headers; returns the document's URL. */
  json(path: string, document: (url: string) => unknown, headers: Record<string, string> = {}): string {
    const url = this.origin + path;
    this.routes.set(path, (_request, response) => {
      response.writeHead(200, { 'Content-Type': 'application/json', ...headers });
      response.end(JSON.stringify(document(url)));
    });
    return url;
  }

  count(url: string): number {
    return this.hits.get(new URL(url).pathname) ?? 0;
  }
}
