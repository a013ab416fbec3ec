import type { Context } from '../../context.js';
import type { Feature } from '../../feature.js';
import { CIBA_GRANT } from '../../records/backchannel-client.js';
import { PAGE_PATHS } from '../../ui/paths.js';
import { ENDPOINTS } from '../metadata.js';
import { approvalsDecisionEndpoint, approvalsPageEndpoint } from './approvals.js';
import { cibaApi } from './decide.js';
import { backchannelAuthenticationEndpoint } from './endpoint.js';
import { cibaGrant } from './grant.js';
import { cibaSettings } from './settings.js';

export { CIBA_GRANT } from '../../records/backchannel-client.js';
export type { CibaApi, CibaApproval, CibaPendingRequest } from './api.js';

/**
 * OpenID Connect Client-Initiated Backchannel Authentication (CIBA Core 1.0, poll and ping modes)
 * as a feature, when the `ciba` option is given: the backchannel authentication endpoint (which
 * clients call, cross-origin too, like the token endpoint), the approval page, the
 * `urn:openid:params:grant-type:ciba` grant of the token endpoint, the host's `gatehouse.ciba`, and
 * the discovery members of CIBA §4. Every handler closes over the settings it was built with.
 */
export const cibaFeature: Feature = {
  name: 'ciba',
  setup(options, shared) {
    const settings = cibaSettings(options.ciba);
    if (!settings) return {};
    return {
      routes: [
        {
          path: ENDPOINTS.backchannelAuthentication,
          methods: { POST: backchannelAuthenticationEndpoint(settings, shared.authorizationDetails) },
          cors: true,
        },
        {
          path: PAGE_PATHS.approvals,
          methods: {
            GET: approvalsPageEndpoint(shared, shared.authorizationDetails),
            POST: approvalsDecisionEndpoint(settings, shared, shared.authorizationDetails),
          },
        },
      ],
      grants: {
        [CIBA_GRANT]: (
          ctx: Pick<
            Context,
            'issuer' | 'clock' | 'randomBytes' | 'emit' | 'logger' | 'storage' | 'users' | 'keys' | 'tokens'
          >,
          params,
          client,
          dpop,
        ) => cibaGrant(ctx, settings, params, client, dpop, shared.authorizationDetails),
      },
      metadata: (endpoint) => ({
        backchannel_authentication_endpoint: endpoint(ENDPOINTS.backchannelAuthentication),
        backchannel_token_delivery_modes_supported: [...settings.deliveryModes],
        backchannel_user_code_parameter_supported: false,
      }),
      ciba: (ctx) => cibaApi(ctx, settings),
    };
  },
};
