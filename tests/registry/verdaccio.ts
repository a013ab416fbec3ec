/**
 * A local npm registry for one test run: verdaccio (a root devDependency) as its own process on
 * 127.0.0.1 and a random port, storing into a temp folder. `@gatehousejs/*` is served only from
 * what was published to it (never from the public registry, where the scope is not ours); every
 * other package is proxied from the public npm registry (its uplink), as a user's install would
 * fetch it.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../examples/express/test/support/demo-server';
import { type AppProcess, startApp } from '../quickstarts/app-process';

const verdaccioBin = fileURLToPath(new URL('../../node_modules/.bin/verdaccio', import.meta.url));

/** A running local registry. */
export interface LocalRegistry {
  /** Its URL, with a trailing slash (`http://127.0.0.1:PORT/`). */
  readonly url: string;
  /** An `.npmrc` holding a publish token for it (pass it as `npm_config_userconfig`). */
  readonly npmrc: string;
  output(): string;
  stop(): Promise<void>;
}

const CONFIG = `storage: ./storage
auth:
  htpasswd:
    file: ./htpasswd
uplinks:
  npmjs:
    url: https://registry.npmjs.org/
    timeout: 30s
packages:
  '@gatehousejs/*':
    access: $all
    publish: $authenticated
  '**':
    access: $all
    publish: $authenticated
    proxy: npmjs
web:
  enable: false
max_body_size: 50mb
log: { type: stdout, format: pretty, level: warn }
`;

/** Starts verdaccio in `dir` (its config, storage and users go there); rejects when it cannot start. */
export async function startLocalRegistry(dir: string): Promise<LocalRegistry> {
  writeFileSync(join(dir, 'config.yaml'), CONFIG);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  const server: AppProcess = await startApp(
    [verdaccioBin, '--config', join(dir, 'config.yaml'), '--listen', `127.0.0.1:${port}`],
    dir,
    `${url}-/ping`,
    30_000,
  );
  try {
    // `npm adduser`'s request (the CouchDB user document), which answers a bearer token.
    const response = await fetch(`${url}-/user/org.couchdb.user:release`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'release', password: 'release-password' }),
    });
    const { token } = (await response.json()) as { token?: string };
    if (!response.ok || !token) throw new Error(`verdaccio refused the publish user: ${response.status}`);
    const npmrc = join(dir, 'publish.npmrc');
    writeFileSync(npmrc, `//127.0.0.1:${port}/:_authToken=${token}\n`);
    return { url, npmrc, output: server.output, stop: server.stop };
  } catch (error) {
    await server.stop();
    throw error;
  }
}
