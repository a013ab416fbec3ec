// The demo as a Cloudflare Worker on workerd (the `workerd` npm package, run by Miniflare).
import { runtimeSuite } from '../src/runtime-suite.js';
import { RUNTIMES } from '../src/runtimes.js';

runtimeSuite(RUNTIMES.workerd, 'a module Worker on Miniflare');
