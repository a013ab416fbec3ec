import type { Feature } from '../../feature.js';
import { defaultTransport } from '../../http/default-transport.js';
import type { EndedSession, SessionObserverContext } from '../../session/lifecycle.js';
import { LogoutDeliveries } from './delivery.js';
import { rememberParticipant, takeParticipants } from './participants.js';

/**
 * OpenID Connect Back-Channel Logout 1.0 as a feature: its options (`backchannelLogout`, resolved
 * with the instance's settings, which dynamic registration reads for `backchannel_logout_uri`), its
 * members of the discovery documents (§2.1), and its observer of the session lifecycle: it
 * remembers the clients with a `backchannelLogoutUri` that receive tokens in each session (§2.3),
 * and when a session ends, whoever ended it, sends each of them a logout token (§2.4, §2.5) after
 * the user's answer. Its services close over its settings and one delivery queue per instance.
 */
export const backchannelLogoutFeature: Feature = {
  name: 'back-channel logout',
  setup(options, shared) {
    const settings = shared.backchannelLogout;
    if (settings === undefined) return {};
    if (
      options.dynamicRegistration !== undefined &&
      options.backchannelLogout?.fetch === undefined &&
      !defaultTransport().checksResolvedAddresses
    )
      shared.logger.warn(unresolvedWarning);
    const deliveries = new LogoutDeliveries(settings);
    return {
      // §2.1; `sid` is in every ID token of a session (Front-Channel Logout §3), so also in logout tokens.
      metadata: () => ({ backchannel_logout_supported: true, backchannel_logout_session_supported: true }),
      sessions: {
        joined: (ctx, participant) => rememberParticipant(ctx, settings.maxClientsPerSession, participant),
        ended: (ctx, sessions) => {
          const work = Promise.all(sessions.map((session) => tellParticipants(ctx, deliveries, session)));
          settings.waitUntil?.(work);
        },
      },
    };
  },
};

/** Sends a logout token to each client that took part in `session`. Never rejects (logged). */
async function tellParticipants(
  ctx: SessionObserverContext,
  deliveries: LogoutDeliveries,
  session: EndedSession,
): Promise<void> {
  let clientIds: readonly string[];
  try {
    clientIds = await takeParticipants(ctx, session);
  } catch (error) {
    ctx.logger.error('gatehouse: the relying parties of an ended session could not be read', error);
    return;
  }
  await Promise.all(
    clientIds.map(async (clientId) => {
      let client: Awaited<ReturnType<SessionObserverContext['clients']['findClient']>>;
      try {
        client = await ctx.clients.findClient(clientId);
      } catch {
        // A host record refused as it entered was logged, naming the client and the field.
        ctx.logger.warn(
          `gatehouse: no logout token for client ${JSON.stringify(clientId)}: it could not be read`,
        );
        return;
      }
      // A client deleted since, or whose URI was removed, is not told.
      if (client?.backchannelLogoutUri === undefined) return;
      await deliveries.deliver(ctx, client, session.userId, session.sid);
    }),
  );
}

const unresolvedWarning =
  "gatehouse: backchannelLogout sends logout requests to URIs that self-registered clients chose with this runtime's fetch, " +
  'which cannot check the addresses a host name resolves to: a name resolving to a private or loopback address ' +
  'is reached unless the platform refuses it (IP literals are always refused). Pass a `fetch` transport that ' +
  'checks resolved addresses, or make sure the egress rules stop such requests.';
