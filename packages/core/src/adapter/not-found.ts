import { notFound } from '../http/router.js';

/**
 * The core's 404 JSON answer, for an adapter that must answer a request no route takes (a Next.js
 * route handler has no "next" to fall through to).
 */
export function notFoundResponse(): Response {
  return notFound().toResponse();
}
