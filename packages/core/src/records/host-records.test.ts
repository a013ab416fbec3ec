import {
  type ClientStore,
  generateClientSecret,
  hashClientSecret,
  memoryUserStore,
  type UserStore,
} from '@gatehousejs/core';
import { describe, expect, it } from 'vitest';
import {
  basic,
  ISSUER,
  issueTokens,
  post,
  REDIRECT_URI,
  testHasher,
  testInstance,
  userBasic,
} from '../../test/fixtures';

// Client and user records returned by the host's stores are checked where they enter: a record that
// cannot work is a 4xx for that client or user, never a 500, and one log line names the record and
// the field, however many requests meet it.

/** A ClientStore over rows as a host's database might return them, typos included. */
function rowStore(rows: readonly Record<string, unknown>[]): ClientStore {
  return {
    async findClient(clientId) {
      return (rows.find((row) => row.id === clientId || row.client_id === clientId) ?? null) as never;
    },
  };
}

/** An instance whose errors are collected as log lines. */
async function logged(options: Parameters<typeof testInstance>[0]) {
  const lines: string[] = [];
  const t = await testInstance({
    logger: { warn() {}, error: (message: string) => lines.push(message) },
    ...options,
  });
  return { ...t, lines };
}

function tokenRequest(clientId: string, secret: string): Request {
  return post(
    '/oauth2/v1/token',
    { grant_type: 'client_credentials' },
    { Authorization: basic(clientId, secret) },
  );
}

function authorizeRequest(clientId: string): Request {
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT_URI,
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    code_challenge_method: 'S256',
  });
  return new Request(`${ISSUER}/oauth2/v1/authorize?${query}`);
}

describe('client records from the host store', () => {
  it('answer a redirectUri typo with an error page at authorize and one log line naming the client and field', async () => {
    const t = await logged({
      clients: rowStore([{ id: 'typo', type: 'public', redirectUri: REDIRECT_URI }]),
    });
    for (let attempt = 0; attempt < 3; attempt++) {
      const response = await t.gatehouse.fetch(authorizeRequest('typo'));
      expect(response.status).toBe(400);
      expect(response.headers.get('location')).toBeNull();
      expect(await response.text()).toContain('registration on this server is invalid');
    }
    expect(t.lines).toHaveLength(1);
    expect(t.lines[0]).toContain('client "typo"');
    expect(t.lines[0]).toContain(
      'redirectUris: missing, but the record has "redirectUri"; did you mean "redirectUris"?',
    );
  });

  it.each([
    [
      'a snake_case row',
      async () => ({
        id: 'snake',
        type: 'confidential',
        redirect_uris: [REDIRECT_URI],
        secret_hash: await hashClientSecret('s3cret'),
      }),
      's3cret',
      [
        'redirectUris: missing, but the record has "redirect_uris"',
        'secretHash: missing, but the record has "secret_hash"',
      ],
    ],
    [
      'a confidential client without secretHash',
      async () => ({ id: 'nohash', type: 'confidential', redirectUris: [] }),
      's3cret',
      ['secretHash: missing: a confidential client using client_secret_basic (the default for its type)'],
    ],
    [
      'a plain secret in secretHash',
      async () => ({ id: 'plain', type: 'confidential', redirectUris: [], secretHash: 'hunter2-secret' }),
      'hunter2-secret',
      ['secretHash: looks like the plain secret rather than hashClientSecret(secret)'],
    ],
    [
      'a bcrypt hash in secretHash',
      async () => ({
        id: 'bcrypted',
        type: 'confidential',
        redirectUris: [],
        secretHash: '$2b$10$abcdefghijklmnopqrstuuJ0GqYpC0cYkzHgH2s5q7xS3Kq9c8G.e',
      }),
      's3cret',
      ['secretHash: looks like a password hash'],
    ],
    [
      'a misspelt grant type',
      async () => ({
        id: 'service',
        type: 'confidential',
        redirectUris: [],
        secretHash: await hashClientSecret('s3cret'),
        grantTypes: ['client-credentials'],
      }),
      's3cret',
      ['grantTypes[0]: "client-credentials" is not a grant type; did you mean "client_credentials"?'],
    ],
    [
      'keys without private_key_jwt',
      async () => ({
        id: 'keyed',
        type: 'confidential',
        redirectUris: [],
        jwksUri: 'https://keyed.example.com/jwks',
      }),
      's3cret',
      ['did you mean tokenEndpointAuthMethod: "private_key_jwt"?'],
    ],
    [
      'a back-channel logout URI over plain http to another host',
      async () => ({
        id: 'bcl-http',
        type: 'confidential',
        redirectUris: [],
        secretHash: await hashClientSecret('s3cret'),
        backchannelLogoutUri: 'http://rp.example.com/logout',
      }),
      's3cret',
      [
        'backchannelLogoutUri: "http://rp.example.com/logout" is not https (http only to a loopback host: localhost, 127.0.0.1, [::1])',
      ],
    ],
    [
      'a back-channel logout URI with a fragment',
      async () => ({
        id: 'bcl-fragment',
        type: 'confidential',
        redirectUris: [],
        secretHash: await hashClientSecret('s3cret'),
        backchannelLogoutUri: 'https://rp.example.com/logout#now',
      }),
      's3cret',
      [
        'backchannelLogoutUri: "https://rp.example.com/logout#now" has a fragment (Back-Channel Logout 1.0 section 2.2)',
      ],
    ],
    [
      'a snake_case back-channel logout URI and a string flag',
      async () => ({
        id: 'bcl-snake',
        type: 'confidential',
        redirectUris: [],
        secretHash: await hashClientSecret('s3cret'),
        backchannel_logout_uri: 'https://rp.example.com/logout',
        backchannelLogoutSessionRequired: 'yes',
      }),
      's3cret',
      [
        'backchannelLogoutUri: missing, but the record has "backchannel_logout_uri"',
        'backchannelLogoutSessionRequired: expected a boolean, got the string "yes"',
      ],
    ],
    [
      'a public client registered for a secret',
      async () => ({
        id: 'pub',
        type: 'public',
        redirectUris: [],
        tokenEndpointAuthMethod: 'client_secret_basic',
      }),
      's3cret',
      ['tokenEndpointAuthMethod: a public client cannot authenticate with "client_secret_basic"'],
    ],
    [
      'a replay share that is no whole number',
      async () => ({
        id: 'quota',
        type: 'confidential',
        redirectUris: [],
        secretHash: await hashClientSecret('s3cret'),
        grantTypes: ['client_credentials'],
        maxAssertionsPerWindow: '5000',
      }),
      's3cret',
      ['maxAssertionsPerWindow: expected a whole number from 1 to 1,000,000, got the string "5000"'],
    ],
    [
      'a replay share under another name',
      async () => ({
        id: 'quota-name',
        type: 'confidential',
        redirectUris: [],
        secretHash: await hashClientSecret('s3cret'),
        grantTypes: ['client_credentials'],
        replayQuota: 5000,
      }),
      's3cret',
      ['maxAssertionsPerWindow: missing, but the record has "replayQuota"'],
    ],
    [
      'a record of another id (a case-insensitive lookup)',
      async () => ({ id: 'CaseDifferent', client_id: 'casedifferent', type: 'public', redirectUris: [] }),
      's3cret',
      ['id: the store returned the record of "CaseDifferent" for "casedifferent"'],
    ],
    [
      'a row without type or redirectUris',
      async () => ({ id: 'bare' }),
      's3cret',
      ['type: expected "confidential" or "public", got nothing', 'redirectUris: missing'],
    ],
  ])(
    'answer %s with 401 invalid_client at the token endpoint and log the field once',
    async (_, make, secret, expected) => {
      const row = await make();
      const id = (row as { client_id?: string }).client_id ?? (row.id as string);
      const t = await logged({ clients: rowStore([row]) });
      for (let attempt = 0; attempt < 2; attempt++) {
        const response = await t.gatehouse.fetch(tokenRequest(id, secret));
        expect(response.status).toBe(401);
        expect(response.headers.get('www-authenticate')).toContain('Basic realm=');
        expect(await response.json()).toMatchObject({ error: 'invalid_client' });
      }
      expect(t.lines).toHaveLength(1);
      expect(t.lines[0]).toContain(`client ${JSON.stringify(id)}`);
      for (const text of expected) expect(t.lines[0]).toContain(text);
    },
  );

  it('log a generated secret stored in secretHash, which has the shape of a hash, when the client presents it', async () => {
    const secret = generateClientSecret();
    const t = await logged({
      clients: rowStore([
        {
          id: 'raw',
          type: 'confidential',
          redirectUris: [],
          secretHash: secret,
          grantTypes: ['client_credentials'],
        },
      ]),
    });
    const response = await t.gatehouse.fetch(tokenRequest('raw', secret));
    expect(response.status).toBe(401);
    await t.gatehouse.fetch(tokenRequest('raw', secret));
    expect(t.lines).toEqual([expect.stringContaining('client "raw" is refused')]);
    expect(t.lines[0]).toContain('secretHash: holds the plain client secret');
  });

  it('serve a record that is right, without a log line', async () => {
    const t = await logged({
      clients: rowStore([
        {
          id: 'service',
          type: 'confidential',
          redirectUris: [],
          secretHash: await hashClientSecret('s3cret'),
          grantTypes: ['client_credentials'],
          dbColumnGatehouseIgnores: 42,
        },
      ]),
    });
    const response = await t.gatehouse.fetch(tokenRequest('service', 's3cret'));
    expect(response.status).toBe(200);
    expect(t.lines).toEqual([]);
  });
});

describe('user records from the host store', () => {
  const users = (found: (userId: string) => unknown, verified?: unknown): UserStore => ({
    async verifyPassword() {
      return (verified ?? null) as never;
    },
    async findUser(userId) {
      return found(userId) as never;
    },
  });

  it('refuse a refresh for a user whose record has no id, as for a deleted user, and log it once', async () => {
    const t = await logged({ users: users((userId) => ({ user_id: userId, username: 'demo' })) });
    const { refresh_token } = await issueTokens(t as never);
    const refresh = () =>
      t.gatehouse.fetch(
        post(
          '/oauth2/v1/token',
          { grant_type: 'refresh_token', refresh_token },
          { Authorization: basic('demo-client', 'demo-secret') },
        ),
      );
    const response = await refresh();
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: 'invalid_grant' });
    await refresh();
    expect(t.lines).toHaveLength(1);
    expect(t.lines[0]).toContain('user "user-1" is refused: UserStore.findUser returned an invalid record');
    expect(t.lines[0]).toContain('id: missing, but the record has "user_id"; did you mean "id"?');
  });

  it('fail a password login whose record has a numeric id (401, not 500), naming the field', async () => {
    const t = await logged({ users: users(() => null, { id: 42, username: 'demo' }) });
    const response = await t.gatehouse.fetch(
      new Request(`${ISSUER}/auth/v1/token`, {
        method: 'POST',
        headers: { Authorization: userBasic('demo', 'pw') },
      }),
    );
    expect(response.status).toBe(401);
    expect(t.lines).toEqual([expect.stringContaining('the user of username "demo" is refused')]);
    expect(t.lines[0]).toContain(
      'id: expected the user id (the sub claim) as a non-empty string, got the number 42',
    );
  });

  it('refuse claims that carry their own sub', async () => {
    const t = await logged({
      users: users((userId) => ({ id: userId, claims: { sub: 'someone-else', name: 'Demo' } })),
    });
    const { refresh_token } = await issueTokens(t as never);
    const response = await t.gatehouse.fetch(
      post(
        '/oauth2/v1/token',
        { grant_type: 'refresh_token', refresh_token },
        { Authorization: basic('demo-client', 'demo-secret') },
      ),
    );
    expect(response.status).toBe(400);
    expect(t.lines[0]).toContain('claims.sub: must not be set');
  });

  it('accept the memory store records unchanged', async () => {
    const t = await logged({
      users: memoryUserStore(
        [
          {
            id: 'user-1',
            username: 'demo',
            passwordHash: await testHasher.hash('pw'),
            claims: { name: 'D' },
          },
        ],
        { hasher: testHasher },
      ),
    });
    const response = await t.gatehouse.fetch(
      new Request(`${ISSUER}/auth/v1/token`, {
        method: 'POST',
        headers: { Authorization: userBasic('demo', 'pw') },
      }),
    );
    expect(response.status).toBe(200);
    expect(t.lines).toEqual([]);
  });
});
