/**
 * The six servers the conformance suite runs against: each example as its user would start it,
 * and the core behind a plain `node:http` server. Each listens on `PORT` (127.0.0.1).
 */
import { fileURLToPath } from 'node:url';

/** How to start one server (the examples' servers here, the other runtimes' in examples/runtimes). */
export interface Target {
  /** Names the server in test titles and errors. */
  readonly name: string;
  /** Working directory. */
  readonly cwd: string;
  /** Executable (relative to `cwd`) and arguments. */
  readonly command: readonly [string, ...string[]];
  /**
   * Requests the framework answers itself before any Gatehouse code can run, each with the reason:
   * the suite skips those checks for this target and says why.
   */
  readonly answeredByFramework?: { readonly trace?: string };
  /** Environment on top of the suite's own (which picks the memory engine). */
  readonly env?: Readonly<Record<string, string>>;
  /** The path that answers 200 once the server is ready. Default: the demo's metadata document. */
  readonly readyPath?: string;
  /** Mounts the demo's portal (issue 29): the interaction flows run against it. */
  readonly portal?: true;
}

const examples = fileURLToPath(new URL('../../', import.meta.url));
const tsx = (dir: string, script = 'src/server.ts'): Target['command'] => [
  `${examples}${dir}/node_modules/.bin/tsx`,
  script,
];

/** The Node.js servers of the examples, by name. */
export type TargetName = 'core' | 'express' | 'koa' | 'hono' | 'fastify' | 'next';

export const TARGETS: Readonly<Record<TargetName, Target>> = {
  core: {
    name: 'core',
    cwd: `${examples}conformance`,
    command: tsx('conformance', 'src/node-server.ts'),
    portal: true,
  },
  express: { name: 'express', cwd: `${examples}express`, command: tsx('express'), portal: true },
  koa: { name: 'koa', cwd: `${examples}koa`, command: tsx('koa'), portal: true },
  hono: { name: 'hono', cwd: `${examples}hono`, command: tsx('hono'), portal: true },
  fastify: { name: 'fastify', cwd: `${examples}fastify`, command: tsx('fastify'), portal: true },
  // The production build (made once by the global setup), served by `next start`.
  next: {
    name: 'next',
    cwd: `${examples}next`,
    command: [`${examples}next/node_modules/.bin/next`, 'start', '-H', '127.0.0.1'],
    answeredByFramework: {
      trace:
        'Next.js builds its own Request before any route handler or middleware runs, and new Request() refuses TRACE: Next answers its generic 500 page (no stack trace in production)',
    },
  },
};
