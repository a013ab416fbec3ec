/**
 * The conformance flows (`src/flows.ts`) against every Node.js target: the core behind plain
 * `node:http` and the five examples, each started once and serving both demo instances (`demo`,
 * `acme`). Nothing here knows which framework answers.
 */
import { DEMO, DEMO_INSTANCES } from '@gatehousejs/demo';
import { backchannelLogoutFlows } from '../src/backchannel-logout-flows.js';
import { conformanceSuite } from '../src/flows.js';
import { TARGETS } from '../src/targets.js';

for (const target of Object.values(TARGETS))
  conformanceSuite(target, {
    instances: DEMO_INSTANCES,
    // A relying party on a loopback listener of this process, told when the user signs out: the
    // Node.js servers (a Worker's runtime needs `waitUntil` for work after the answer).
    also: (server) => backchannelLogoutFlows(() => server().issuer, DEMO.user.id),
  });
