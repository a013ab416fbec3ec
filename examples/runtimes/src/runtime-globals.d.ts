/**
 * The few Bun and Deno APIs the servers here call, as those runtimes document them (Bun.serve,
 * Deno.serve), so that `tsc` checks the servers without either runtime's full type package.
 */

declare namespace Bun {
  interface Server {
    readonly port: number;
    requestIP(request: Request): { readonly address: string } | null;
    stop(closeActiveConnections?: boolean): Promise<void>;
  }
  interface ServeOptions {
    readonly port: number;
    readonly hostname: string;
    fetch(request: Request, server: Server): Response | Promise<Response>;
  }
  const version: string;
  function serve(options: ServeOptions): Server;
}

declare namespace Deno {
  interface ServeHandlerInfo {
    readonly remoteAddr: { readonly hostname: string; readonly port: number };
  }
  interface HttpServer {
    shutdown(): Promise<void>;
  }
  const version: { readonly deno: string };
  const env: { get(name: string): string | undefined; toObject(): Record<string, string> };
  function serve(
    options: { readonly port: number; readonly hostname: string; onListen?(): void },
    handler: (request: Request, info: ServeHandlerInfo) => Response | Promise<Response>,
  ): HttpServer;
  function addSignalListener(signal: 'SIGTERM' | 'SIGINT', handler: () => void): void;
  function exit(code?: number): never;
}
