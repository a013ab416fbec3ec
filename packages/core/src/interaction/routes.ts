import type { Route } from '../http/router.js';
import { INTERACTION_PATHS } from './paths.js';
import { interactionResumeEndpoint } from './resume-endpoint.js';

/** The interaction routes: the resume endpoint (its GET issues codes, so HEAD is not answered). */
export function interactionRoutes(): Route[] {
  return [{ path: INTERACTION_PATHS.resume, methods: { GET: interactionResumeEndpoint }, unsafeGet: true }];
}
