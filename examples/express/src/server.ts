/**
 * The Express example: the demo host's two Gatehouse instances, `demo` at `/demo` and `acme` at
 * `/acme` (issue 18: one `createGatehouseHost` mounted like one instance), the portal at `/portal/`
 * (issue 29: a host app with its own sign-in and its own OpenID Provider), plus the demo client's
 * callback page, the page its users land on after signing out (`/logged-out`), the browser
 * app for `demo`, and the MCP server of `examples/mcp` at `/mcp` (protected by `demo`). `PORT` (default 3000) and `HOST` (default
 * 127.0.0.1) choose where it listens.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { jsonLinesAuditSink } from '@gatehousejs/core';
import { fileAuditSink } from '@gatehousejs/core/node';
import {
  allowedOriginsFromEnv,
  createDemoHost,
  demoApi,
  describeDemoHost,
  LOGGED_OUT_PAGE,
} from '@gatehousejs/demo';
import { MCP, mcpResource, mcpServer } from '@gatehousejs/example-mcp';
import { gatehouse, operations } from '@gatehousejs/express';
import express from 'express';

const publicDir = fileURLToPath(new URL('../public', import.meta.url));

const port = Number(process.env.PORT ?? 3000);
const host = process.env.HOST ?? '127.0.0.1';
// The audit trail of both instances (docs "Audit events"), one JSON line per security event: on
// stdout by default, appended to a file with GATEHOUSE_AUDIT=/path/audit.jsonl, none with GATEHOUSE_AUDIT=off.
const auditTarget = process.env.GATEHOUSE_AUDIT ?? 'stdout';
const audit =
  auditTarget === 'off'
    ? undefined
    : auditTarget === 'stdout'
      ? jsonLinesAuditSink((line) => process.stdout.write(line))
      : fileAuditSink(auditTarget);
const demo = await createDemoHost({
  port,
  allowedOrigins: allowedOriginsFromEnv(),
  portal: true,
  ...(audit ? { overrides: { audit } } : {}),
});

const app = express();
app.disable('x-powered-by');
// The portal (issue 29): a host app with its own users, sessions and login page at /portal/, and
// its own OpenID Provider (issuer {origin}/portal) that hands sign-in to it. A Web handler, mounted
// like the operations, before the host's instances (which would answer /portal/… with 404).
app.use(operations(demo.portal!.fetch));
// Every route of both instances (/demo/…, /acme/…), and their RFC 8414 §3 metadata at
// /.well-known/oauth-authorization-server/{demo,acme} (and /.well-known/openid-configuration/…):
// the host is mounted like one instance.
app.use(gatehouse(demo.host));
// The demo's REST API (POST /{demo,acme}/api/v1/tickets): each instance authenticates its own callers.
app.use(operations(demoApi(demo.host)));
// The MCP server (examples/mcp) at /mcp, protected by the `demo` instance: resource {origin}/mcp,
// its RFC 9728 metadata at /.well-known/oauth-protected-resource/mcp. A Web handler, mounted like
// the operations.
const demoInstance = await demo.host.instance('demo');
if (!demoInstance) throw new Error('the demo host has no "demo" instance');
const mcp = mcpServer(demoInstance, { resource: mcpResource(demo.origin) });
app.use(operations(mcp.fetch));
// The browser demo app (`/`) and its callback page (`/callback`): public/, bundled by `pnpm start`.
// No site may frame them (clickjacking): a `<meta>` CSP cannot say so, only these response headers
// can (CSP Level 3 §6.4.2 `frame-ancestors`; `X-Frame-Options`, RFC 7034, for older browsers).
// Gatehouse's own pages send the same.
const refuseFraming = (res: express.Response) => {
  res.set({ 'X-Frame-Options': 'DENY', 'Content-Security-Policy': "frame-ancestors 'none'" });
};
app.use(express.static(publicDir, { index: 'index.html', setHeaders: refuseFraming }));
app.get('/callback', (_req, res) => {
  refuseFraming(res);
  res.set('Cache-Control', 'no-store').sendFile(join(publicDir, 'callback.html'));
});
// An issuer URL is an identifier, not a page; opened in a browser, it leads to the instance's
// OpenID Provider metadata, which lists every endpoint.
for (const name of ['demo', 'acme'] as const) {
  app.get(`/${name}`, (_req, res) => {
    res.redirect(302, `/${name}/.well-known/openid-configuration`);
  });
}
// Where the demo clients land after RP-initiated logout (their registered post-logout redirect URI).
app.get('/logged-out', (_req, res) => {
  res.set('Cache-Control', 'no-store').type('html').send(LOGGED_OUT_PAGE);
});

const server = app.listen(port, host, (error) => {
  // Express 5 hands a listen error (EADDRINUSE: another server on the port) to this callback
  // instead of throwing it: unchecked, the demo would print its URLs and exit with status 0.
  if (error) {
    console.error(
      `gatehouse demo: cannot listen on ${host}:${port}: ${error.message}. Stop the other server, or start on another port: PORT=3001 pnpm start`,
    );
    process.exit(1);
  }
  console.log(describeDemoHost(demo));
  console.log(
    `  MCP server:     ${mcp.resource.resource} (Streamable HTTP; tokens of demo for this resource, scope ${MCP.scope}; metadata ${mcp.resource.metadataUrl})`,
  );
  console.log(`listening on http://localhost:${port}`);
});

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    server.close(() => demo.close().finally(() => process.exit(0)));
    server.closeAllConnections();
  });
}
