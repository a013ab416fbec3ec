/**
 * An MCP server (Model Context Protocol, Streamable HTTP transport) whose one tool, `list_tickets`,
 * lists the demo's sample tickets of the caller, protected by a Gatehouse instance as the MCP
 * authorization specification asks: RFC 9728 metadata at
 * `/.well-known/oauth-protected-resource/mcp`, a Bearer challenge naming it on every 401, tokens
 * accepted only when their `aud` is this server (RFC 8707), and 403 `insufficient_scope` without
 * `tickets:read`.
 *
 * Framework-neutral: {@link mcpServer} returns a Web `Request → Response` handler built on the SDK's
 * `WebStandardStreamableHTTPServerTransport`, so any fetch-style host (Hono, Bun, Deno, Workers,
 * Next.js route handlers) serves it as is, and Node frameworks mount it through their Gatehouse
 * adapter's `operations(…)` (Express: `app.use(operations(mcp.fetch))`).
 */

import type { Gatehouse } from '@gatehousejs/core';
import { type Caller, type ProtectedResource, protectedResource } from '@gatehousejs/core/protect';
import { DEMO, SAMPLE_TICKETS_PER_CALLER, sampleTickets, TICKET_LIMIT } from '@gatehousejs/demo';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { z } from 'zod';

/** Where the MCP endpoint lives on the host (`/mcp`), and the scope its tool requires (`tickets:read`). */
export const MCP = DEMO.mcp;

/** The MCP server's resource identifier on a host origin: `{origin}/mcp`. */
export function mcpResource(origin: string): string {
  return origin + MCP.path;
}

/** Options of {@link mcpServer}. */
export interface McpServerOptions {
  /** The resource identifier, e.g. `http://localhost:3000/mcp`; its path is where the server answers. */
  readonly resource: string;
}

/** The MCP endpoint of a host: its protected resource and its Web handler. */
export interface McpEndpoint {
  /** The resource identifier, metadata URL and bearer check. */
  readonly resource: ProtectedResource;
  /**
   * Answers the MCP endpoint and its RFC 9728 metadata; `undefined` for any other path, so a
   * host falls through to its own routes.
   */
  fetch(request: Request): Promise<Response | undefined>;
}

/**
 * The tickets MCP server protected by `gatehouse`. The instance must list the resource in its
 * `resources` option (the demo does), or no client can get a token for it.
 */
export function mcpServer(gatehouse: Gatehouse, options: McpServerOptions): McpEndpoint {
  const resource = protectedResource(gatehouse, {
    resource: options.resource,
    scopes: [MCP.scope],
    resourceName: 'Gatehouse demo tickets (MCP)',
  });
  const path = new URL(options.resource).pathname;
  const authenticate = resource.authenticateOptions(MCP.scope);
  return {
    resource,
    async fetch(request) {
      const metadata = resource.fetch(request);
      if (metadata) return metadata;
      if (new URL(request.url).pathname !== path) return undefined;
      // The bearer check first: a 401 names the metadata (the client's discovery starts there).
      const result = await gatehouse.authenticate(request, authenticate);
      if (!result.ok) return result.response;
      return answerMcp(request, result.caller, options.resource);
    },
  };
}

/**
 * One MCP exchange in stateless mode (a server and transport per request, no session id: any
 * process can answer any request), JSON responses rather than SSE streams, since the tool answers
 * at once. The caller comes from Gatehouse; the tool sees it as the SDK's `authInfo`.
 */
async function answerMcp(request: Request, caller: Caller, resource: string): Promise<Response> {
  const server = ticketsServer();
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request, {
      authInfo: {
        token: '', // never handed on: the tool needs the caller, not the credential
        clientId: caller.clientId ?? '',
        scopes: [...caller.scope],
        expiresAt: caller.expiresAt,
        resource: new URL(resource),
        extra: { sub: caller.sub },
      },
    });
  } finally {
    await server.close();
  }
}

/** The MCP server with its one tool. */
export function ticketsServer(): McpServer {
  const server = new McpServer({ name: 'gatehouse-demo-tickets', version: '0.0.0' });
  server.registerTool(
    'list_tickets',
    {
      title: 'List tickets',
      description: `Lists the signed-in user's support tickets, newest first (at most ${SAMPLE_TICKETS_PER_CALLER}).`,
      inputSchema: {
        limit: z
          .number()
          .int()
          .min(TICKET_LIMIT.min)
          .max(TICKET_LIMIT.max)
          .optional()
          .describe(
            `How many tickets to return, ${TICKET_LIMIT.min} to ${TICKET_LIMIT.max} (default ${TICKET_LIMIT.default}).`,
          ),
      },
      annotations: { readOnlyHint: true },
    },
    async ({ limit }, extra) => {
      const sub = extra.authInfo?.extra?.sub;
      if (typeof sub !== 'string') {
        return { isError: true, content: [{ type: 'text', text: 'No authenticated caller.' }] };
      }
      const tickets = sampleTickets(sub, limit ?? TICKET_LIMIT.default);
      return {
        content: [{ type: 'text', text: JSON.stringify({ tickets }) }],
        structuredContent: { tickets },
      };
    },
  );
  return server;
}
