import type { Route } from '../http/router.js';
import { builtInFormEndpoint, builtInPageEndpoint } from './built-in-pages.js';
import { INTERACTION_PATHS } from './paths.js';
import { interactionResumeEndpoint } from './resume-endpoint.js';

/**
 * The interaction routes: the resume endpoint (its GET issues codes, so HEAD is not answered), and
 * the built-in pages as interaction handlers when `interactions.builtInPages` is on.
 */
export function interactionRoutes(builtInPages = true): Route[] {
  return [
    { path: INTERACTION_PATHS.resume, methods: { GET: interactionResumeEndpoint }, unsafeGet: true },
    ...(builtInPages
      ? [
          {
            path: INTERACTION_PATHS.builtIn,
            methods: { GET: builtInPageEndpoint, POST: builtInFormEndpoint },
          },
        ]
      : []),
  ];
}
