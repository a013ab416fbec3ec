/**
 * The conformance flows (`src/flows.ts`) against every Node.js target: the core behind plain
 * `node:http` and the five examples, each started once and serving both demo instances (`demo`,
 * `acme`). Nothing here knows which framework answers.
 */
import { DEMO_INSTANCES } from '@gatehousejs/demo';
import { conformanceSuite } from '../src/flows.js';
import { TARGETS } from '../src/targets.js';

for (const target of Object.values(TARGETS)) conformanceSuite(target, { instances: DEMO_INSTANCES });
