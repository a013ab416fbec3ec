// The demo on Deno's own HTTP server, from the `deno` npm package's binary.
import { runtimeSuite } from '../src/runtime-suite.js';
import { RUNTIMES } from '../src/runtimes.js';

runtimeSuite(RUNTIMES.deno, 'Deno.serve');
