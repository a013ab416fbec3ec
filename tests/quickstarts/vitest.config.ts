import { gatehouseProject } from '../../vitest.shared';

// Installs, builds and starts three fresh projects and drives Chromium through them: slow, so generous.
export default gatehouseProject('quickstarts', {
  include: ['*.test.ts'],
  testTimeout: 300_000,
  hookTimeout: 120_000,
});
