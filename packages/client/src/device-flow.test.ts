import { type FetchFunction, isGatehouseClientError } from '@gatehousejs/client';
import { DEVICE_CODE_GRANT, memoryClientStore } from '@gatehousejs/core';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeBrowser } from '../../core/test/browser-flow';
import { ISSUER, testClients } from '../../core/test/fixtures';
import { harness } from '../test/support';

/**
 * The device flow of the client library against a real instance (memory stores, fake clock). The
 * client's waits are fake timers advanced with the instance's clock, so that an interval of 5 s
 * takes no real time; every poll is recorded with the server's answer.
 */
async function deviceHarness() {
  const h = await harness({
    clients: memoryClientStore([
      ...(await testClients()),
      {
        id: 'cli',
        name: 'Test CLI',
        type: 'public',
        tokenEndpointAuthMethod: 'none',
        redirectUris: [],
        grantTypes: [DEVICE_CODE_GRANT, 'refresh_token'],
      },
    ]),
  });
  const polls: string[] = [];
  const fetch: FetchFunction = async (input, init) => {
    const request = new Request(input, init);
    const isPoll = new URLSearchParams(await request.clone().text()).get('grant_type') === DEVICE_CODE_GRANT;
    const response = await h.fetch(request);
    if (isPoll)
      polls.push(response.ok ? 'tokens' : ((await response.clone().json()) as { error: string }).error);
    return response;
  };
  const client = h.client({ clientId: 'cli', clientSecret: undefined, redirectUri: undefined, fetch });
  /** Lets `seconds` pass for the client's timers and the server's clock, then waits for the poll. */
  async function elapse(seconds: number, serverSeconds = seconds): Promise<string | undefined> {
    const before = polls.length;
    h.clock.advance(serverSeconds);
    await vi.advanceTimersByTimeAsync(seconds * 1000);
    // A poll runs on real time (hashing, signing): wait for it up to 5 s, in real time.
    const until = Date.now() + 5000;
    while (polls.length === before && Date.now() < until) await new Promise((r) => setImmediate(r));
    return polls[before];
  }
  /** Lets `seconds` pass and checks that no poll is made (given 300 ms of real time to show up). */
  async function elapseWithoutPoll(seconds: number): Promise<void> {
    const before = polls.length;
    h.clock.advance(seconds);
    await vi.advanceTimersByTimeAsync(seconds * 1000);
    const until = Date.now() + 300;
    while (Date.now() < until) await new Promise((r) => setImmediate(r));
    expect(polls.length).toBe(before);
  }
  /** The person's side: the code on the verification page, sign-in, then Allow or Deny. */
  async function decide(userCode: string, decision: 'allow' | 'deny') {
    const browser = new FakeBrowser(h.gatehouse);
    const form = await browser.get(`${ISSUER}/device`);
    const login = await browser.submitAndFollow(await form.text(), { user_code: userCode });
    const signedIn = await browser.submit(await login.text(), {
      username: 'demo',
      password: 'demo-password',
    });
    const confirm = await browser.follow(signedIn);
    const done = await browser.submit(await confirm.text(), { decision });
    expect(done.status).toBe(200);
  }
  return { ...h, clientOf: h.client, client, polls, elapse, elapseWithoutPoll, decide };
}

describe('client.startDeviceAuthorization (RFC 8628)', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('shows the code, polls while pending, and stores the tokens once the person allows', async () => {
    const h = await deviceHarness();
    const device = await h.client.startDeviceAuthorization({ scope: 'read offline_access' });
    expect(device.userCode).toMatch(/^[A-Z]{4}-[A-Z]{4}$/);
    expect(device.verificationUri).toBe(`${ISSUER}/device`);
    expect(device.verificationUriComplete).toBe(`${ISSUER}/device?user_code=${device.userCode}`);
    expect(device.interval).toBe(5);
    const waiting = device.wait();
    expect(await h.elapse(5)).toBe('authorization_pending');
    await h.decide(device.userCode, 'allow');
    expect(await h.elapse(5)).toBe('tokens');
    const tokens = await waiting;
    expect(tokens.scope).toBe('read offline_access');
    expect(tokens.refreshToken).toBeTruthy();
    expect((await h.client.getTokens())?.accessToken).toBe(tokens.accessToken);
    // Refreshed like any other token set.
    expect((await h.client.refresh()).accessToken).not.toBe(tokens.accessToken);
  });

  it('waits 5 s longer after slow_down', async () => {
    const h = await deviceHarness();
    const device = await h.client.startDeviceAuthorization({ scope: 'read' });
    const waiting = device.wait();
    // The server's clock lags the client's: its poll arrives early for the server.
    expect(await h.elapse(5, 2)).toBe('slow_down');
    expect(device.interval).toBe(10);
    await h.elapseWithoutPoll(5); // no poll after only 5 of the 10 s
    expect(await h.elapse(5, 10)).toBe('authorization_pending');
    device.cancel();
    await expect(waiting).rejects.toMatchObject({ code: 'cancelled' });
  });

  it('rejects with access_denied when the person denies', async () => {
    const h = await deviceHarness();
    const device = await h.client.startDeviceAuthorization({ scope: 'read' });
    const waiting = device.wait().catch((error: unknown) => error);
    await h.decide(device.userCode, 'deny');
    expect(await h.elapse(5)).toBe('access_denied');
    const error = await waiting;
    expect(isGatehouseClientError(error, 'device_authorization_failed')).toBe(true);
    expect((error as { error: string }).error).toBe('access_denied');
    expect(await h.client.getTokens()).toBeNull();
  });

  it('stops when cancelled or aborted, without another poll', async () => {
    const h = await deviceHarness();
    const device = await h.client.startDeviceAuthorization({ scope: 'read' });
    const controller = new AbortController();
    const waiting = device.wait({ signal: controller.signal });
    controller.abort();
    await expect(waiting).rejects.toMatchObject({ code: 'cancelled' });
    await h.elapseWithoutPoll(5);
    expect(h.polls).toEqual([]);
  });

  it('reports a refused start (a client not registered for the grant)', async () => {
    const h = await deviceHarness();
    const spa = h.clientOf({ clientId: 'demo-spa', clientSecret: undefined });
    await expect(spa.startDeviceAuthorization()).rejects.toMatchObject({
      code: 'device_authorization_failed',
      error: 'unauthorized_client',
    });
  });
});
