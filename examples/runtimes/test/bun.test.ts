// The demo on Bun's own HTTP server, from the `bun` npm package's binary.
import { runtimeSuite } from '../src/runtime-suite.js';
import { RUNTIMES } from '../src/runtimes.js';

runtimeSuite(RUNTIMES.bun, 'Bun.serve');
