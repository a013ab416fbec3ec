/**
 * `@gatehousejs/core/adapter`: for authors of server adapters (`@gatehousejs/express`, `koa`, `hono`,
 * `next` are built on it), not for applications. The fast paths of a busy server: answers that are
 * plain text until the server writes them ({@link Reply}), and a bearer check that returns at once
 * when it can ({@link withAuthentication}). Applications use `gatehouse.fetch` and
 * `gatehouse.authenticate` of the main entry, which give the same answers as `Response`s and
 * promises. Runtime-neutral, like the main entry.
 * @packageDocumentation
 */
export type { Awaitable } from '../awaitable.js';
export { clientAddressOf, setClientAddress } from '../http/client-address.js';
export { type Answer, isReply, Reply, toResponse } from '../http/reply.js';
export { answerOf, checkMountPath, type Servable } from './answer.js';
export { notFoundResponse } from './not-found.js';
export { type Authenticator, authenticateNow, withAuthentication } from './with-authentication.js';
