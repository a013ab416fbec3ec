/** The process entry of `gatehouse-demo` (`bin/gatehouse-demo.mjs` on Node.js; `bun src/bin.ts` on Bun). */
import { main } from './cli.js';

process.exitCode = await main(process.argv.slice(2));
