/**
 * The demo host of this Next.js app: both demo instances, `demo` and `acme` (one
 * `createGatehouseHost`, issuers `http://localhost:<PORT>/{demo,acme}`), one per server process,
 * created on first use. Next.js bundles each route separately, so the host is kept on `globalThis`
 * (under a registered symbol) rather than in a module variable: every route handler gets the same
 * issuers, keys and stores. `PORT` (which `next start` also reads) is part of the issuers.
 */
import { allowedOriginsFromEnv, createDemoHost, type DemoHost, demoApi } from '@gatehousejs/demo';

const KEY = Symbol.for('gatehouse.example-next.demo-host');

/** The host and its tickets API. */
export interface NextDemo {
  readonly demo: DemoHost;
  /** `POST /{demo,acme}/api/v1/tickets`: each instance authenticates its own callers. */
  readonly api: ReturnType<typeof demoApi>;
}

type Holder = { [KEY]?: Promise<NextDemo> };

/** The process's demo host and its tickets API. */
export function getDemo(): Promise<NextDemo> {
  const holder = globalThis as Holder;
  holder[KEY] ??= createDemoHost({
    port: Number(process.env.PORT ?? 3000),
    allowedOrigins: allowedOriginsFromEnv(),
  }).then((demo) => ({ demo, api: demoApi(demo.host) }));
  return holder[KEY];
}
