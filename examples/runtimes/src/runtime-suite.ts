/**
 * The conformance flows (`examples/conformance/src/flows.ts`) against both demo instances
 * (`demo`, `acme`) served by one runtime, started as its own process and driven over HTTP, plus a check that the runtime itself
 * answered. Prints the runtime's version, or why it is skipped.
 */
import { DEMO_INSTANCES } from '@gatehousejs/demo';
import { expect, it } from 'vitest';
import { conformanceSuite } from '../../conformance/src/flows.js';
import { probe, type Runtime } from './runtimes.js';

/** Registers the flows for `runtime`; `serves` says how it serves them (e.g. `Bun.serve`). */
export function runtimeSuite(runtime: Runtime, serves: string): void {
  const { name } = runtime.target;
  const probed = probe(runtime);
  if ('skip' in probed) {
    console.warn(`${name}: skipped: ${probed.skip}`);
    conformanceSuite(runtime.target, {
      title: `conformance: ${name}`,
      skip: probed.skip,
      instances: DEMO_INSTANCES,
    });
    return;
  }
  console.log(`${name}: ${probed.version}`);
  conformanceSuite(runtime.target, {
    title: `conformance: ${probed.version}, ${serves}`,
    instances: DEMO_INSTANCES,
    also: (server) => {
      it(`is answered by ${name} itself`, async () => {
        await expect(runtime.answered(server())).resolves.toBeUndefined();
      });
    },
  });
}
