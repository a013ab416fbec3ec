import { gatehouseProject } from '../../vitest.shared';

// The fault campaign (`pnpm test:faults`): servers of its own, killed, paused and cut while
// processes serve a load. Timing matters (recovery, revocation lag), so it runs after every other
// project (tests/deployment included) and one file at a time; a few minutes (see campaign.test.ts).
export default gatehouseProject('faults', {
  include: ['*.test.ts'],
  testTimeout: 90_000,
  hookTimeout: 120_000,
  poolOptions: { forks: { singleFork: true } },
  sequence: { groupOrder: 2 },
});
