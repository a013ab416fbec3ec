import type { Awaitable } from '../../awaitable.js';
import type { Context } from '../../context.js';
import { clientNamed } from '../../records/record-problems.js';
import type { ClientRecord } from '../../storage/types.js';
import { secretHash, timingSafeEqual } from '../../tokens/secrets.js';

/**
 * Whether `secret` is `client`'s registered secret: compared by its SHA-256 hash, in constant time.
 * Without a client (or a registered hash) the comparison still runs, against a value no hash can
 * equal, so that response times do not tell which client ids exist. Shared by the methods that
 * carry the secret itself (`client_secret_basic`, `client_secret_post`).
 *
 * A presented secret equal to the stored `secretHash` means the host stored the plain secret where
 * its hash belongs (a generated secret has the very shape of a hash, so the record check cannot
 * see it): still a failure, but logged once, naming the client and the field.
 */
export function verifyClientSecret(
  ctx: Pick<Context, 'clients'>,
  secret: string,
  client: ClientRecord | undefined,
): Awaitable<boolean> {
  // Where the hash is ready at once (native crypto), so is the answer: no promise per request.
  const hash = secretHash(secret);
  return hash instanceof Promise
    ? hash.then((text) => secretMatches(ctx, secret, text, client))
    : secretMatches(ctx, secret, hash, client);
}

/** {@link verifyClientSecret} once the presented secret's hash is known. */
function secretMatches(
  ctx: Pick<Context, 'clients'>,
  secret: string,
  hash: string,
  client: ClientRecord | undefined,
): boolean {
  const expected = client?.secretHash ?? hash.replace(/./g, '-');
  if (client?.secretHash !== undefined && timingSafeEqual(secret, client.secretHash)) {
    ctx.clients.problems.report(clientNamed(client.id), 'ClientStore.findClient', [
      'secretHash: holds the plain client secret; store hashClientSecret(secret) instead',
    ]);
  }
  return timingSafeEqual(hash, expected) && client !== undefined;
}
