import { gatehouseProject } from '../../vitest.shared';

// The plans run whole against servers started by the tests (Gatehouse's demo, oidc-provider), with
// Chromium for the user's part: one file per plan, each bounded (see the README's timings).
export default gatehouseProject('conformance-plans', { testTimeout: 240_000, hookTimeout: 60_000 });
