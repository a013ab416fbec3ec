import { hashClientSecret, memoryClientStore } from '@gatehousejs/core';
import { describe, expect, it } from 'vitest';
import { ISSUER, issueTokens, REDIRECT_URI, testClients, testInstance } from '../../test/fixtures';
import { ADMIN_COMMANDS } from './admin/commands.js';
import { ADMIN_EXIT_CODES, ADMIN_USAGE, runAdminCommand } from './admin-command.js';

/** An instance with the admin API, stored keys, and `ops` (client credentials, the admin scope) designated. */
async function adminInstance() {
  const t = await testInstance({
    keyRotation: { keyEncryptionKey: new Uint8Array(32).fill(7) },
    admin: { authorize: ({ clientId, subject }) => subject.kind === 'client' && clientId === 'ops' },
    clients: memoryClientStore([
      ...(await testClients()),
      {
        id: 'ops',
        type: 'confidential',
        secretHash: await hashClientSecret('ops-secret'),
        grantTypes: ['client_credentials'],
        scopes: ['gatehouse:admin'],
        redirectUris: [],
      },
      {
        id: 'not-designated',
        type: 'confidential',
        secretHash: await hashClientSecret('nd-secret'),
        grantTypes: ['client_credentials'],
        scopes: ['gatehouse:admin'],
        redirectUris: [REDIRECT_URI],
      },
    ]),
  });
  const fetch = (input: string, init?: RequestInit) => t.gatehouse.fetch(new Request(input, init));
  const run = (...args: string[]) =>
    runAdminCommand([...args, '--issuer', ISSUER, '--client-id', 'ops', '--client-secret', 'ops-secret'], {
      fetch,
    });
  return { t, fetch, run };
}

describe('gatehouse admin', () => {
  it('lists, rotates and revokes keys, as a table or as JSON', async () => {
    const { run } = await adminInstance();
    const listed = await run('keys', 'list');
    expect(listed).toMatchObject({ exitCode: 0, stderr: '' });
    expect(listed.stdout).toMatch(/^KID\s+ALG\s+STATE\s+SINCE\s+UNTIL\n/);
    expect(listed.stdout).toContain('signing: ');
    const rotated = JSON.parse((await run('keys', 'rotate', '--json')).stdout);
    const next = rotated.keys.find((key: { state: string }) => key.state === 'next');
    expect(next).toBeDefined();
    const revoked = await run('keys', 'revoke', next.kid);
    expect(revoked.exitCode).toBe(0);
    expect(revoked.stdout).toMatch(new RegExp(`${next.kid}\\s+\\S+\\s+revoked`));
  });

  it("answers every operation: health, metrics, clients, users, a user's sessions and grants, audit", async () => {
    const { t, run } = await adminInstance();
    await issueTokens(t, 'read');
    expect((await run('health')).stdout).toMatch(/^status: ok\n/);
    expect((await run('metrics')).stdout).toContain('tokens issued');
    expect((await run('clients', 'list')).stdout).toMatch(/demo-client\s+Demo Client\s+host/);
    expect((await run('clients', 'list', '--self')).stdout).toBe('(none)\n');
    expect((await run('users', 'find', 'user-1')).stdout).toMatch(/user-1\s+demo/);
    expect((await run('sessions', 'list', 'user-1')).exitCode).toBe(0);
    const grants = JSON.parse((await run('grants', 'list', 'user-1', '--json')).stdout).grants;
    expect(grants).toHaveLength(1);
    expect((await run('grants', 'revoke', grants[0].id)).stdout).toBe(`Revoked grant ${grants[0].id}.\n`);
    expect((await run('grants', 'list', 'user-1')).stdout).toBe('(none)\n');
    expect((await run('user', 'revoke', 'user-1')).stdout).toMatch(
      /^Revoked user user-1: \d+ session\(s\), \d+ grant\(s\)\.\n$/,
    );
    const audit = await run('audit', '--type', 'admin.action', '--limit', '5');
    expect(audit.exitCode).toBe(0);
    expect(audit.stdout).toContain('admin.action');
  });

  it('exits 1 with the error when the instance refuses: unknown id, wrong secret, not designated', async () => {
    const { fetch, run } = await adminInstance();
    const unknown = await run('sessions', 'revoke', 'no-such-session');
    expect(unknown.exitCode).toBe(ADMIN_EXIT_CODES.refused);
    expect(unknown.stderr).toContain('not_found');
    const wrong = await runAdminCommand(
      ['health', '--issuer', ISSUER, '--client-id', 'ops', '--client-secret', 'wrong'],
      { fetch },
    );
    expect(wrong.exitCode).toBe(1);
    expect(wrong.stderr).toContain('invalid_client');
    const other = await runAdminCommand(['health', '--issuer', ISSUER], {
      fetch,
      env: { GATEHOUSE_CLIENT_ID: 'not-designated', GATEHOUSE_CLIENT_SECRET: 'nd-secret' },
    });
    expect(other.exitCode).toBe(1);
    expect(other.stderr).toContain('(HTTP 403)');
  });

  it('exits 2 for a wrong command line and 3 when the instance cannot be reached', async () => {
    for (const args of [
      [],
      ['keys'],
      ['keys', 'revoke'],
      ['health', '--issuer', ISSUER],
      ['health', '--bogus', 'x', '--issuer', ISSUER, '--token', 't'],
      ['health', '--token', 't'],
    ]) {
      const outcome = await runAdminCommand(args, { env: {} });
      expect(outcome.exitCode, args.join(' ')).toBe(ADMIN_EXIT_CODES.usage);
      expect(outcome.stderr).toContain('Usage: gatehouse admin');
    }
    const down = await runAdminCommand(['health', '--issuer', 'http://127.0.0.1:9', '--token', 't'], {
      fetch: async () => {
        throw new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED 127.0.0.1:9') });
      },
    });
    expect(down).toMatchObject({ exitCode: ADMIN_EXIT_CODES.network, stdout: '' });
    expect(down.stderr).toContain('ECONNREFUSED');
    expect((await runAdminCommand(['--help'])).stdout).toBe(ADMIN_USAGE);
  });

  it('has one command per admin operation of the contract', () => {
    expect(ADMIN_COMMANDS.map((c) => c.operationId).sort()).toEqual(
      [
        'health',
        'metrics',
        'listKeys',
        'rotateKeys',
        'revokeKey',
        'listClients',
        'deleteClient',
        'findUsers',
        'listUserSessions',
        'revokeSession',
        'listUserGrants',
        'revokeGrant',
        'revokeUser',
        'readAudit',
      ].sort(),
    );
  });
});
