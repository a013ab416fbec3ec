import type { Feature } from '../../feature.js';
import { ASSERTION_SIGNING_ALGORITHMS } from '../jwt-assertion.js';

export { REQUEST_OBJECT_TYPE, type RequestObjectVerifying } from './request-object.js';
export { type RequestObjectSettings, requestObjectSettings } from './settings.js';

/**
 * Signed request objects (RFC 9101) as a feature: its options (`requestObjects`, validated once
 * into the instance settings' `requestObjects`, which the authorization flow and the pushed
 * authorization request endpoint verify `request` with), and its members of the discovery
 * documents (§10.5, OpenID Connect Discovery §3): `request` by value is supported, with the
 * algorithms listed; `request_uri` stays the pushed requests' own (RFC 9126), so
 * `request_uri_parameter_supported` remains `false`.
 */
export const requestObjectsFeature: Feature = {
  name: 'request objects',
  setup(_options, shared) {
    const settings = shared.requestObjects;
    return {
      metadata: () => ({
        request_parameter_supported: true,
        request_object_signing_alg_values_supported: [
          ...ASSERTION_SIGNING_ALGORITHMS,
          ...(settings?.allowUnsigned ? ['none'] : []),
        ],
        require_signed_request_object: settings?.required === true,
      }),
    };
  },
};
