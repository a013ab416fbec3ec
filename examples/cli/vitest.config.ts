import { gatehouseProject } from '../../vitest.shared';

export default gatehouseProject('example-cli', { testTimeout: 60_000 });
