import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import {
  ConfigurationError,
  createGatehouse,
  ERROR_CODES,
  memoryClientStore,
  memoryUserStore,
  StorageUnavailableError,
  UsageError,
} from '@gatehousejs/core';
import { memoryGrantStore } from '@gatehousejs/core/engine';
import { describe, expect, it } from 'vitest';
import { ISSUER, testInstance, testKey } from '../test/fixtures';

const script = fileURLToPath(new URL('../scripts/error-codes.mjs', import.meta.url));

async function creationError(options: Record<string, unknown>): Promise<unknown> {
  const base = {
    issuer: ISSUER,
    keys: [await testKey()],
    clients: memoryClientStore([]),
    users: memoryUserStore([]),
  };
  try {
    createGatehouse({ ...base, ...options } as never);
  } catch (error) {
    return error;
  }
  throw new Error('createGatehouse did not throw');
}

describe('stable error codes', () => {
  it('docs/error-codes.md is generated from the current ERROR_TABLE and ERROR_CODES, and every code thrown is in the table', async () => {
    // Fails (exit 1) after a code is added or thrown without regenerating, or thrown without being listed.
    await expect(promisify(execFile)('node', [script, '--check'])).resolves.toBeDefined();
  });

  it.each([
    [{ sesion: {} }, 'ERR_CONFIG_UNKNOWN_OPTION', 'sesion'],
    [{ session: { cookieName: 'a b' } }, 'ERR_CONFIG_INVALID_OPTION', 'session.cookieName'],
    [{ users: undefined }, 'ERR_CONFIG_MISSING_OPTION', 'users'],
    [{ scopes: ['openid'], defaultScope: 'email' }, 'ERR_CONFIG_CONFLICTING_OPTIONS', 'defaultScope'],
    [{ keys: [{ kty: 'EC', crv: 'P-256', x: 'x', y: 'y', d: 'd' }] }, 'ERR_CONFIG_INVALID_KEY', 'keys[0]'],
    [{ accessTokenTtl: 0 }, 'ERR_CONFIG_INVALID_OPTION', 'accessTokenTtl'],
  ])(
    'createGatehouse(%j) throws ConfigurationError %s naming the option %s',
    async (options, code, option) => {
      const error = await creationError(options);
      expect(error).toBeInstanceOf(ConfigurationError);
      expect(error).toMatchObject({ code, option });
      expect(Object.keys(ERROR_CODES)).toContain(code);
    },
  );

  it('a host mistake in a call is a UsageError (a TypeError) with a code and the argument', async () => {
    const t = await testInstance();
    const error = await t.gatehouse.revokeUser('').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UsageError);
    expect(error).toBeInstanceOf(TypeError);
    expect(error).toMatchObject({ code: 'ERR_INVALID_ARGUMENT', argument: 'userId' });
  });

  it('a storage failure and a storage timeout are told apart by the storageCode of StorageUnavailableError', async () => {
    const refused = new Error('connection refused');
    const failing = await testInstance({
      storage: { grants: { ...memoryGrantStore(), revokeSubject: () => Promise.reject(refused) } },
    });
    await expect(failing.gatehouse.revokeUser('user-1')).rejects.toMatchObject({
      name: 'ProtocolError',
      code: 'temporarily_unavailable',
      storageCode: 'ERR_STORAGE_UNAVAILABLE',
      cause: refused,
    });
    const hanging = await testInstance({
      storageTimeoutMs: 20,
      storage: { grants: { ...memoryGrantStore(), revokeSubject: () => new Promise<void>(() => {}) } },
    });
    const error = await hanging.gatehouse.revokeUser('user-1').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StorageUnavailableError);
    expect(error).toMatchObject({ storageCode: 'ERR_STORAGE_TIMEOUT' });
  });
});
