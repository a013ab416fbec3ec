/**
 * Issue 32: "Protect an API in another service", followed top to bottom. The guide's quick start
 * (packages/core/docs/api-in-another-service.md) is pasted as written into a fresh project outside
 * the workspace, its `pnpm add` line installed with the packed tarballs standing in for the
 * registry; the authorization server and the API are started as the guide says (`npx tsx …`), on
 * free ports instead of 3000 and 4000; then the guide's "Try it": a client-credentials token for
 * the API is accepted there, a token without `resource` (another audience) and no token are not.
 * Then the same with the guide's "Seeing revocations: introspection" applied (its client added to
 * the authorization server, its `resourceServer` replacing the API's): a revoked token is refused.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { freePort } from '../../examples/express/test/support/demo-server';
import { type AppProcess, startApp } from '../quickstarts/app-process';
import { fencedBlocks, readQuickStart } from '../quickstarts/readme-quick-start';
import { installFreshProject, type PackedPackage, packagesBuilt, packPublished } from '../support/pack';

const guide = fileURLToPath(new URL('../../packages/core/docs/api-in-another-service.md', import.meta.url));

if (!packagesBuilt) console.warn('guides: skipped, the packages are not built (run `pnpm run build`).');

let work = '';
let packed: PackedPackage[] = [];

beforeAll(async () => {
  if (!packagesBuilt) return;
  work = mkdtempSync(join(tmpdir(), 'gatehouse-guide-api-'));
  packed = await packPublished(join(work, 'tarballs'));
});

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

/** The guide's two files in a fresh project, started on free ports; the guide's token request and API call. */
async function startGuide(name: string, edit: (path: string, code: string) => string = (_, code) => code) {
  const quickStart = readQuickStart(guide);
  expect(quickStart.files.map((file) => file.path)).toEqual(['auth-server.mts', 'api.mts']);
  const [authPort, apiPort] = [await freePort(), await freePort()];
  const project = join(work, name);
  await installFreshProject(project, 'pnpm', packed, quickStart.install);
  for (const { path, code } of quickStart.files) {
    writeFileSync(
      join(project, path),
      edit(path, code)
        .replace(/\b3000\b/g, String(authPort))
        .replace(/\b4000\b/g, String(apiPort)),
    );
  }

  const issuer = `http://localhost:${authPort}/demo`;
  const api = `http://localhost:${apiPort}/api/reports`;
  const started: AppProcess[] = [];
  onTestFailed(() => console.error(started.map((app) => app.output()).join('\n---\n')));
  const stop = async () => {
    for (const app of started) await app.stop();
  };
  try {
    const [authServer, apiServer] = quickStart.files;
    started.push(await startApp(authServer!.runWith!.split(' '), project, `${issuer}/oauth2/v1/keys`));
    // startApp waits for a 200, which the API gives no request without a token: it is started
    // (the authorization server's keys answering), then polled until it answers at all.
    started.push(await startApp(apiServer!.runWith!.split(' '), project, `${issuer}/oauth2/v1/keys`));
    const apiUp = Date.now() + 30_000;
    while ((await fetch(api).catch(() => undefined)) === undefined) {
      if (Date.now() > apiUp) throw new Error('the API did not answer within 30 s');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  } catch (error) {
    await stop();
    throw error;
  }
  const worker = { authorization: `Basic ${btoa('reports-worker:reports-worker-secret')}` };
  const token = async (resource?: string) => {
    const body = new URLSearchParams({ grant_type: 'client_credentials', scope: 'reports:read' });
    if (resource) body.set('resource', resource);
    const response = await fetch(`${issuer}/oauth2/v1/token`, { method: 'POST', headers: worker, body });
    expect(response.status).toBe(200);
    return ((await response.json()) as { access_token: string }).access_token;
  };
  const revoke = async (accessToken: string) => {
    const body = new URLSearchParams({ token: accessToken });
    const response = await fetch(`${issuer}/oauth2/v1/revoke`, { method: 'POST', headers: worker, body });
    expect(response.status).toBe(200);
  };
  const call = (accessToken?: string) =>
    fetch(api, { headers: accessToken ? { authorization: `Bearer ${accessToken}` } : {} });
  return { apiResource: `http://localhost:${apiPort}/api`, token, revoke, call, stop };
}

describe.skipIf(!packagesBuilt)('guide: Protect an API in another service', () => {
  it('the API accepts a token asked for it, and refuses one for another audience', async () => {
    const { apiResource, token, call, stop } = await startGuide('app');
    try {
      const forApi = await call(await token(apiResource));
      expect(forApi.status).toBe(200);
      expect(await forApi.json()).toEqual({ reports: [], for: 'reports-worker' });

      const elsewhere = await call(await token());
      expect(elsewhere.status).toBe(401);
      expect(elsewhere.headers.get('www-authenticate')).toContain('invalid_token');

      const none = await call();
      expect(none.status).toBe(401);
      expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/);
    } finally {
      await stop();
    }
  });

  it('with the introspection section applied, a revoked token is refused', async () => {
    const text = readFileSync(guide, 'utf8');
    const section = text.slice(text.indexOf('## Seeing revocations'));
    const [client, server] = fencedBlocks(section.slice(0, section.indexOf('\n## ', 1)), 'ts').map((code) =>
      code.slice(code.indexOf('\n') + 1),
    );
    expect(client).toContain("introspects: ['http://localhost:4000/api']");
    const resourceServerCall = /const tokens = resourceServer\(\{[\s\S]*?\n\}\);/;
    const { apiResource, token, revoke, call, stop } = await startGuide('app-introspection', (path, code) => {
      const edited =
        path === 'auth-server.mts'
          ? code.replace('clients: memoryClientStore([\n', `clients: memoryClientStore([\n${client}`)
          : code.replace(resourceServerCall, server!.trim());
      expect(edited).not.toBe(code);
      return edited;
    });
    try {
      const accepted = await call(await token(apiResource));
      expect(accepted.status).toBe(200);
      // Revoked before its first use: no kept answer, so the instance's "inactive" is what counts
      // (an API verifying with the JWKS would let it in).
      const revoked = await token(apiResource);
      await revoke(revoked);
      const refused = await call(revoked);
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toContain('invalid_token');
    } finally {
      await stop();
    }
  });
});
