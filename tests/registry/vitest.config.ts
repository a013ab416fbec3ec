import { gatehouseProject } from '../../vitest.shared';

// Publishes to a local verdaccio and installs from it with three package managers: slow, so generous
// (the whole file is meant to finish well within 3 minutes; see the header of registry.test.ts).
export default gatehouseProject('registry', {
  include: ['*.test.ts'],
  testTimeout: 150_000,
  hookTimeout: 60_000,
});
