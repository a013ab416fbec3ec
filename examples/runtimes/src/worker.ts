/**
 * The demo host (instances `demo` and `acme`) and its tickets API as a Cloudflare Worker (module syntax), for workerd. It is
 * bundled by `src/workerd-server.ts` with the in-memory engine and no `nodejs_compat` flag: the core
 * needs no Node.js API. Bindings: `PORT` (part of the issuer), `GATEHOUSE_ALLOWED_ORIGINS`,
 * optionally `GATEHOUSE_SIGNING_KEY` (and `GATEHOUSE_ACME_SIGNING_KEY`).
 *
 * The in-memory stores live in one isolate. That suffices for workerd serving one process here; on
 * Cloudflare's network requests spread over many isolates, so a deployment needs a shared engine
 * (see "Runtimes" in the repository README).
 */
import { allowedOriginsFromEnv, createDemoHost } from '@gatehousejs/demo';
import { demoHandler } from './demo-handler.js';

/** The Worker's bindings (text bindings of the Miniflare or wrangler configuration). */
export interface DemoWorkerEnv {
  readonly PORT: string;
  readonly [name: string]: string | undefined;
}

let handler: Promise<ReturnType<typeof demoHandler>> | undefined;

/** Makes the demo on the first request: Workers refuse to generate keys (randomness) at global scope. */
function demoOf(env: DemoWorkerEnv): Promise<ReturnType<typeof demoHandler>> {
  handler ??= createDemoHost({
    port: Number(env.PORT),
    env,
    allowedOrigins: allowedOriginsFromEnv(env),
    portal: true,
  }).then(demoHandler, (error: unknown) => {
    handler = undefined; // let the next request try again
    throw error;
  });
  return handler;
}

export default {
  async fetch(request: Request, env: DemoWorkerEnv): Promise<Response> {
    const handle = await demoOf(env);
    // Cloudflare's edge sets CF-Connecting-IP to the client's address and drops any the client sent.
    return handle(request, () => request.headers.get('CF-Connecting-IP') ?? undefined);
  },
};
