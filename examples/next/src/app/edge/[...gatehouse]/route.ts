/**
 * Every route of the Edge-runtime proof instance (`/edge/...`), through `@gatehousejs/next`. Each
 * answer carries `x-gatehouse-runtime`, computed per request from the `EdgeRuntime` global (which
 * only the Edge runtime defines), so a test can tell where the handler really ran.
 */
import { handlers, type RouteHandler } from '@gatehousejs/next';
import { edgeGatehouse } from '../../../lib/edge';

export const runtime = 'edge';
export const dynamic = 'force-dynamic';

const routes = handlers({
  fetch: async (request) => (await edgeGatehouse(new URL(request.url).origin)).fetch(request),
});

function tagRuntime(handler: RouteHandler): RouteHandler {
  return async (request, context) => {
    const response = await handler(request, context);
    const headers = new Headers(response.headers);
    const onEdge = typeof (globalThis as { EdgeRuntime?: unknown }).EdgeRuntime === 'string';
    headers.set('x-gatehouse-runtime', onEdge ? 'edge' : 'node');
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
  };
}

export const GET = tagRuntime(routes.GET);
export const HEAD = tagRuntime(routes.HEAD);
export const POST = tagRuntime(routes.POST);
export const OPTIONS = tagRuntime(routes.OPTIONS);
