import { gatehouseProject } from '../../vitest.shared';

// Installs the packed tarballs from the registry's point of view: slow (two installs), so generous.
export default gatehouseProject('packaging', {
  include: ['*.test.ts'],
  testTimeout: 300_000,
  hookTimeout: 300_000,
});
