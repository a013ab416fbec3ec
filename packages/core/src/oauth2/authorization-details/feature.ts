import type { Feature } from '../../feature.js';

export {
  type AuthorizationDetailsService,
  authorizationDetailsSettings,
  coversByDefault,
  type DescribedAuthorizationDetail,
  invalidAuthorizationDetails,
} from './settings.js';
export {
  DETAILS_EXTENSION,
  grantedDetails,
  requestedDetails,
  tokenDetails,
  withGrantedDetails,
} from './token-request.js';

/**
 * Rich authorization requests (RFC 9396) as a feature: its options (`authorizationDetails`,
 * validated once into the {@link AuthorizationDetailsService} the authorization flow, the pushed
 * authorization request endpoint and the token endpoint's grants share: the instance settings'
 * `authorizationDetails`), and `authorization_details_types_supported` in the discovery documents
 * (§10). The parameter itself is read where the requests are: `authorization_details` is one of the
 * authorization parameters, checked by the service, and the grants carry what was granted.
 */
export const authorizationDetailsFeature: Feature = {
  name: 'rich authorization requests',
  setup(_options, shared) {
    const service = shared.authorizationDetails;
    if (service === undefined) return {};
    return { metadata: () => ({ authorization_details_types_supported: [...service.types] }) };
  },
};
