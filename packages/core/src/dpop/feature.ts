import type { Feature } from '../feature.js';

/**
 * RFC 9449 DPoP as a feature: its member of the discovery documents. Its settings (`dpop` option)
 * are resolved with the instance (`InstanceSettings.dpop`, the checks the token, pushed
 * authorization request and protected endpoints are built with).
 */
export const dpopFeature: Feature = {
  name: 'DPoP',
  setup: (_options, shared) => ({
    // RFC 9449 §5.1: asymmetric algorithms only, never "none" or HS*.
    metadata: () => ({ dpop_signing_alg_values_supported: [...shared.dpop.settings.algorithms] }),
  }),
};
