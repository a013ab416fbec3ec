/**
 * Stored key rotation (`keyRotation`) under load on two processes of one issuer sharing a storage
 * engine: each process issues access tokens continuously and both verify every token (the bearer
 * check), while keys rotate on a short schedule and on demand (both processes rotating at once
 * too). Engine tests call {@link rotateUnderLoad} with two separate connections to their engine.
 */
import {
  createGatehouse,
  type Gatehouse,
  type GatehouseStorage,
  hashClientSecret,
  memoryClientStore,
  memoryUserStore,
  type StorageEngine,
} from '@gatehousejs/core';
import { decodeProtectedHeader } from 'jose';

/** What a run saw. */
export interface RotationUnderLoad {
  readonly issued: number;
  readonly verified: number;
  /** Verifications refused (each with the process, age of the token and the answer). */
  readonly failures: readonly string[];
  /** The `kid`s that signed access tokens, in the order first seen. */
  readonly signingKids: readonly string[];
}

interface Issued {
  readonly token: string;
  /** When the token expires, epoch ms (from its `exp`). */
  readonly expiresAt: number;
  readonly by: string;
}

/**
 * Runs two instances of one issuer on `storages` (one per process), until `rotations` new access
 * token keys have signed (on a 2-second schedule, plus on-demand rotations), and returns what it
 * saw. Every token is verified by both processes when issued, and a sample of them again on every
 * turn until it expires.
 */
export async function rotateUnderLoad(
  storages: readonly [GatehouseStorage | StorageEngine, GatehouseStorage | StorageEngine],
  rotations = 4,
): Promise<RotationUnderLoad> {
  const issuer = `https://auth.example/${crypto.randomUUID()}`;
  const keyEncryptionKey = crypto.getRandomValues(new Uint8Array(32));
  const clients = [
    {
      id: 'service',
      type: 'confidential' as const,
      secretHash: await hashClientSecret('service-secret'),
      redirectUris: [],
      grantTypes: ['client_credentials'],
    },
  ];
  const start = (storage: GatehouseStorage | StorageEngine): Gatehouse =>
    createGatehouse({
      issuer,
      keys: [],
      keyRotation: { keyEncryptionKey, rotateEvery: 2, leadTime: 1, refreshInterval: 1, retainFor: 2 },
      accessTokenTtl: 2,
      clockToleranceSeconds: 0,
      authApi: { enabled: false },
      clients: memoryClientStore(clients),
      users: memoryUserStore([]),
      storage,
      logger: { warn() {}, error() {} },
    });
  const processes = [
    { name: 'A', gatehouse: start(storages[0]) },
    { name: 'B', gatehouse: start(storages[1]) },
  ];
  await Promise.all(processes.map((p) => p.gatehouse.ready()));

  const failures: string[] = [];
  const signingKids: string[] = [];
  const aged: Issued[] = [];
  let issued = 0;
  let verified = 0;
  const issue = async (p: (typeof processes)[number]): Promise<Issued | undefined> => {
    const response = await p.gatehouse.fetch(
      new Request(`${issuer}/oauth2/v1/token`, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/x-www-form-urlencoded',
          Authorization: `Basic ${btoa('service:service-secret')}`,
        },
        body: new URLSearchParams({ grant_type: 'client_credentials' }),
      }),
    );
    if (response.status !== 200) {
      failures.push(`${p.name} issue: ${response.status} ${await response.text()}`);
      return undefined;
    }
    const { access_token: token } = (await response.json()) as { access_token: string };
    const kid = decodeProtectedHeader(token).kid!;
    if (!signingKids.includes(kid)) signingKids.push(kid);
    issued++;
    const exp = JSON.parse(atob(token.split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/'))).exp as number;
    return { token, expiresAt: exp * 1000, by: p.name };
  };
  const verify = async (p: (typeof processes)[number], token: Issued) => {
    // Verified only while surely unexpired: expiry is not what this run checks.
    if (Date.now() > token.expiresAt - 300) return;
    const result = await p.gatehouse.authenticate(
      new Request(`${issuer}/api/v1/probe`, { headers: { Authorization: `Bearer ${token.token}` } }),
      { schemes: ['bearer'], subjects: ['client'] },
    );
    if (result.ok) verified++;
    else if (Date.now() < token.expiresAt - 300)
      failures.push(
        `${p.name} refused a token of ${token.by} (kid ${decodeProtectedHeader(token.token).kid}): ${result.response.status} ${result.response.headers.get('www-authenticate')}`,
      );
  };

  const deadline = Date.now() + 60_000;
  let turn = 0;
  while (signingKids.length < rotations + 1) {
    if (Date.now() > deadline) throw new Error(`only ${signingKids.length - 1} rotations in 60 s`);
    turn++;
    // Now and then both processes rotate on demand at once: compare-and-set makes them agree.
    const rotating = turn % 40 === 0 ? processes.map((p) => p.gatehouse.keys.rotate()) : [];
    const fresh = (await Promise.all([...processes, ...processes].map(issue))).filter(
      (token): token is Issued => token !== undefined,
    );
    // The fresh tokens, and older ones up to their expiry (one kept every 5 turns): a key must
    // verify until its last token expires, whichever process signed it.
    if (turn % 5 === 0) aged.push(...fresh.slice(0, 2));
    const live = aged.filter((token) => Date.now() < token.expiresAt - 300);
    aged.splice(0, aged.length, ...live);
    await Promise.all(processes.flatMap((p) => [...fresh, ...aged].map((token) => verify(p, token))));
    await Promise.all(rotating);
  }
  return { issued, verified, failures, signingKids };
}
