import { gatehouseProject } from '../../vitest.shared';

// Static checks over the source of every package: its import graph.
export default gatehouseProject('architecture', { include: ['*.test.ts'] });
