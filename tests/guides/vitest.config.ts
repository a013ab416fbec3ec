import { gatehouseProject } from '../../vitest.shared';

// Packs the packages, installs them into a fresh project and starts the guide's processes: slow.
export default gatehouseProject('guides', {
  include: ['*.test.ts'],
  testTimeout: 240_000,
  hookTimeout: 120_000,
});
