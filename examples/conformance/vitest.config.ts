import { gatehouseProject } from '../../vitest.shared';

// One suite for every target (test/conformance.test.ts); the global setup builds what the servers load.
export default gatehouseProject('conformance', {
  globalSetup: ['./test/global-setup.ts'],
  testTimeout: 30_000,
  hookTimeout: 120_000,
});
