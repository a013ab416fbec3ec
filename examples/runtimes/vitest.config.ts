import { gatehouseProject } from '../../vitest.shared';

// One file per runtime, so vitest starts the three servers in parallel.
export default gatehouseProject('runtimes', { testTimeout: 30_000, hookTimeout: 120_000 });
