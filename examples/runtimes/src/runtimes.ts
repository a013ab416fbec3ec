/**
 * The runtimes the core is proven on besides Node.js, each serving the demo instance through
 * `gatehouse.fetch` and nothing else: how to start it as its own process, and which version of the
 * runtime this machine has. Every binary comes from an npm package of this workspace
 * (`bun`, `deno`, and `miniflare`'s `workerd`), so `pnpm install` fetches them.
 */
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { Target } from '../../conformance/src/targets.js';

/** One runtime: the server to start, and the probe of its binary. */
export interface Runtime {
  readonly target: Target;
  /** The runtime and its version as the binary reports it, e.g. `Bun 1.4.5`; throws when it cannot run here. */
  version(): string;
}

const here = fileURLToPath(new URL('../', import.meta.url));
const bin = (name: string) => `${here}node_modules/.bin/${name}`;

/** The first line a binary prints for `args`; throws (with its stderr) when it cannot run. */
function firstLine(command: string, args: readonly string[]): string {
  const output = execFileSync(command, args, { encoding: 'utf8', timeout: 30_000, stdio: 'pipe' });
  return output.split('\n', 1)[0]!.trim();
}

/** workerd as Miniflare runs it: its own npm package, a dependency of `miniflare`. */
function workerdPackage(): { readonly default: string; readonly version: string } {
  const require = createRequire(import.meta.url);
  return createRequire(require.resolve('miniflare'))('workerd');
}

export const RUNTIMES = {
  bun: {
    target: { name: 'bun', cwd: here, command: [bin('bun'), 'src/bun-server.ts'], portal: true },
    version: () => `Bun ${firstLine(bin('bun'), ['--version'])}`,
  },
  deno: {
    target: {
      name: 'deno',
      cwd: here,
      // The demo's TypeScript sources import `./x.js` for `./x.ts` (as tsc wants): Deno maps that with
      // --sloppy-imports. Network and environment access only.
      command: [bin('deno'), 'run', '--sloppy-imports', '--allow-net', '--allow-env', 'src/deno-server.ts'],
      portal: true,
    },
    version: () => firstLine(bin('deno'), ['--version']).replace(/^deno/, 'Deno'),
  },
  workerd: {
    target: { name: 'workerd', cwd: here, command: [bin('tsx'), 'src/workerd-server.ts'], portal: true },
    version: () => {
      const workerd = workerdPackage();
      // Runs the binary, so a machine it cannot run on is found here rather than at start.
      firstLine(workerd.default, ['--version']);
      const miniflare = createRequire(import.meta.url)('miniflare/package.json') as { version: string };
      return `workerd ${workerd.version} (Miniflare ${miniflare.version})`;
    },
  },
} as const satisfies Record<string, Runtime>;

/**
 * The Node bridge of `@gatehousejs/core/node` on the runtime's own `node:http` (`src/bridge-server.ts`):
 * what an Express, Koa or Fastify app on Bun or Deno hands to host code (issue 42).
 */
export const BRIDGE_TARGETS = {
  bun: {
    name: 'bun node bridge',
    cwd: here,
    command: [bin('bun'), 'src/bridge-server.ts'],
    readyPath: '/ready',
  },
  deno: {
    name: 'deno node bridge',
    cwd: here,
    command: [
      bin('deno'),
      'run',
      '--sloppy-imports',
      '--allow-net',
      '--allow-env',
      '--allow-read',
      'src/bridge-server.ts',
    ],
    readyPath: '/ready',
  },
} as const satisfies Record<string, Target>;

/** What the tests of a runtime need to know before registering its flows. */
export type Probe = { readonly version: string } | { readonly skip: string };

/**
 * Probes `runtime`'s binary. When it cannot run, the flows are skipped with the reason, unless
 * `GATEHOUSE_RUNTIMES_REQUIRED` is set (CI sets it): there a missing runtime is a failure.
 */
export function probe(runtime: Runtime): Probe {
  try {
    return { version: runtime.version() };
  } catch (error) {
    const reason = `${runtime.target.name} cannot run on this machine (${firstLineOf(error)}); \`pnpm install\` fetches it`;
    if (process.env.GATEHOUSE_RUNTIMES_REQUIRED) throw new Error(reason, { cause: error });
    return { skip: reason };
  }
}

/** Why a binary could not run: the first line it printed on stderr, else the error's first line. */
function firstLineOf(error: unknown): string {
  const stderr = (error as { stderr?: unknown }).stderr;
  const said = typeof stderr === 'string' ? stderr.split('\n').find((line) => line.trim()) : undefined;
  const text = said ?? (error instanceof Error ? error.message : String(error));
  return text.split('\n', 1)[0]!.trim();
}
