import type { Route } from '../../http/router.js';
import { PAGE_PATHS } from '../../ui/paths.js';
import type { AuthorizationFlow } from '../authorize/flow.js';
import {
  builtInConsentForm,
  builtInConsentPage,
  builtInLoginForm,
  builtInLoginPage,
} from './built-in-pages.js';
import { INTERACTION_PATHS } from './paths.js';
import { interactionResumeEndpoint } from './resume-endpoint.js';

/**
 * The interaction routes: the resume endpoint (its GET issues codes, so HEAD is not answered), and
 * the built-in login and consent pages, the interaction handlers unless the host has its own
 * (`interactions.url`: then those routes answer 404, and no password is ever checked there).
 */
export function interactionRoutes(flow: AuthorizationFlow): Route[] {
  const builtInPages = flow.interactions.url === undefined;
  return [
    { path: INTERACTION_PATHS.resume, methods: { GET: interactionResumeEndpoint(flow) }, unsafeGet: true },
    ...(builtInPages
      ? [
          {
            path: PAGE_PATHS.login,
            methods: { GET: builtInLoginPage(flow), POST: builtInLoginForm(flow) },
          },
          {
            path: PAGE_PATHS.consent,
            methods: { GET: builtInConsentPage(flow), POST: builtInConsentForm(flow) },
          },
        ]
      : []),
  ];
}
