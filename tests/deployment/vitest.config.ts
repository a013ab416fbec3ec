import { gatehouseProject } from '../../vitest.shared';

// Application processes behind one balancer on a shared engine (several processes, the rolling
// upgrade): child processes and timing (revocation lag, key rotation), so after the other projects
// and one file at a time.
export default gatehouseProject('deployment', {
  include: ['*.test.ts'],
  testTimeout: 60_000,
  hookTimeout: 180_000,
  poolOptions: { forks: { singleFork: true } },
  sequence: { groupOrder: 1 },
});
