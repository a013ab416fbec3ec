import { gatehouseProject } from '../../vitest.shared';

// One file per target, so the five servers run in parallel; the global setup builds what they load.
export default gatehouseProject('conformance', {
  globalSetup: ['./test/global-setup.ts'],
  testTimeout: 30_000,
  hookTimeout: 120_000,
});
