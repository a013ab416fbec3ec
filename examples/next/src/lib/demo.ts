/**
 * The demo instance of this Next.js app: one per server process, created on first use. Next.js
 * bundles each route separately, so the instance is kept on `globalThis` (under a registered
 * symbol) rather than in a module variable: every route handler gets the same issuer, keys and
 * stores. `PORT` (which `next start` also reads) is part of the issuer.
 */
import { allowedOriginsFromEnv, createDemo, type Demo, demoApi } from '@gatehousejs/demo';

const KEY = Symbol.for('gatehouse.example-next.demo');
type Holder = { [KEY]?: Promise<{ demo: Demo; api: ReturnType<typeof demoApi> }> };

/** The process's demo instance and its tickets API. */
export function getDemo(): Promise<{ demo: Demo; api: ReturnType<typeof demoApi> }> {
  const holder = globalThis as Holder;
  holder[KEY] ??= createDemo({
    port: Number(process.env.PORT ?? 3000),
    allowedOrigins: allowedOriginsFromEnv(),
  }).then((demo) => ({ demo, api: demoApi(demo.gatehouse) }));
  return holder[KEY];
}
