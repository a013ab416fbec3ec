import { gatehouseProject } from '../../vitest.shared';

// One file per runtime (Bun, Deno, workerd, Node.js 22 and 24), so vitest starts their servers in parallel.
export default gatehouseProject('runtimes', { testTimeout: 30_000, hookTimeout: 120_000 });
