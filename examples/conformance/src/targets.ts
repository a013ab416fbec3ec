/**
 * The five servers the conformance suite runs against: each example as its user would start it,
 * and the core behind a plain `node:http` server. Each listens on `PORT` (127.0.0.1).
 */
import { fileURLToPath } from 'node:url';

/** How to start one server. */
export interface Target {
  readonly name: 'core' | 'express' | 'koa' | 'hono' | 'next';
  /** Working directory. */
  readonly cwd: string;
  /** Executable (relative to `cwd`) and arguments. */
  readonly command: readonly [string, ...string[]];
}

const examples = fileURLToPath(new URL('../../', import.meta.url));
const tsx = (dir: string, script = 'src/server.ts'): Target['command'] => [
  `${examples}${dir}/node_modules/.bin/tsx`,
  script,
];

export const TARGETS: Readonly<Record<Target['name'], Target>> = {
  core: { name: 'core', cwd: `${examples}conformance`, command: tsx('conformance', 'src/node-server.ts') },
  express: { name: 'express', cwd: `${examples}express`, command: tsx('express') },
  koa: { name: 'koa', cwd: `${examples}koa`, command: tsx('koa') },
  hono: { name: 'hono', cwd: `${examples}hono`, command: tsx('hono') },
  // The production build (made once by the global setup), served by `next start`.
  next: {
    name: 'next',
    cwd: `${examples}next`,
    command: [`${examples}next/node_modules/.bin/next`, 'start', '-H', '127.0.0.1'],
  },
};
