/**
 * The host handler of issue 42's tests, apart from the test kit so that the runtime matrix
 * (`examples/runtimes`) can serve it on Bun and Deno: no test framework, no Node-only module.
 */

/** What {@link platformRequestProbe} found a host could do with the request it was handed. */
export interface PlatformRequestUses {
  readonly isRequest: boolean;
  readonly header: string | null;
  readonly text: string;
  readonly json?: unknown;
  readonly form?: Record<string, string>;
  readonly byteLength: number;
  readonly copied: { readonly method: string; readonly url: string; readonly text: string };
  /** What the same app answered `fetch(request)` with (the probe's echo of the fetched request). */
  readonly fetched: { readonly method: string; readonly header: string | null; readonly text: string };
}

/**
 * A host handler that reports what host code can do with the request it is handed, as any
 * platform `Request` allows (issue 42): `instanceof Request`, a header, every body reader on clones,
 * `new Request(r)`, and `fetch(r)` itself, which sends the request back to the same app; the
 * probe answers that nested request with an echo of it (method, `X-Probe`, body). Answers JSON
 * ({@link PlatformRequestUses}), or a 500 with the error a use threw.
 */
export function platformRequestProbe(): (request: Request) => Promise<Response> {
  let probing = false;
  return async (request) => {
    if (probing) {
      return Response.json({
        method: request.method,
        header: request.headers.get('x-probe'),
        text: await request.text(),
      });
    }
    probing = true;
    try {
      const type = request.headers.get('content-type') ?? '';
      const uses: PlatformRequestUses = {
        isRequest: request instanceof Request,
        header: request.headers.get('x-probe'),
        text: await request.clone().text(),
        ...(type.startsWith('application/json') ? { json: await request.clone().json() } : {}),
        ...(type.startsWith('application/x-www-form-urlencoded')
          ? { form: Object.fromEntries(await request.clone().formData()) as Record<string, string> }
          : {}),
        byteLength: (await request.clone().arrayBuffer()).byteLength,
        copied: await (async () => {
          const copy = new Request(request.clone());
          return { method: copy.method, url: copy.url, text: await copy.text() };
        })(),
        fetched: await (await fetch(request)).json(),
      };
      return Response.json(uses);
    } catch (error) {
      return new Response(String(error), { status: 500 });
    } finally {
      probing = false;
    }
  };
}
