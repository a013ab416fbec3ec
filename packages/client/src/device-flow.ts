import * as oauth from 'oauth4webapi';
import { type ClientConfig, requireClientId } from './config.js';
import { GatehouseClientError } from './errors.js';
import { toClientError } from './server-errors.js';
import { toTokenSet } from './token-response.js';
import type { TokenSet } from './token-store.js';

/** Options of {@link GatehouseClient.startDeviceAuthorization}. */
export interface DeviceAuthorizationOptions {
  /** The scope to ask for (space-separated), e.g. `'openid profile offline_access tickets:read'`. */
  readonly scope?: string;
  /** RFC 8707 resources the tokens are for (e.g. an MCP server's URL). */
  readonly resource?: string | readonly string[];
}

/** Options of {@link DeviceAuthorization.wait}. */
export interface DeviceWaitOptions {
  /** Stops waiting when aborted (like {@link DeviceAuthorization.cancel}). */
  readonly signal?: AbortSignal;
}

/**
 * A started device authorization (RFC 8628 §3.2): show {@link userCode} and
 * {@link verificationUri} (or {@link verificationUriComplete}, e.g. as a QR code) to the person,
 * then {@link wait} for their decision.
 */
export interface DeviceAuthorization {
  /** The code the person types, as the server shows it (`WDJB-MJHT`). */
  readonly userCode: string;
  /** Where the person enters it. */
  readonly verificationUri: string;
  /** The same with the code in it, when the server gives one (no typing needed). */
  readonly verificationUriComplete?: string;
  /** Seconds until the codes expire, from when the server answered. */
  readonly expiresIn: number;
  /** The polling interval the server asked for, in seconds (it may grow with `slow_down`). */
  readonly interval: number;
  /**
   * Polls the token endpoint every `interval` seconds (5 s more after each `slow_down`, RFC 8628
   * §3.5) until the person decides; stores and returns the token set. Rejects with
   * `GatehouseClientError` code `device_authorization_failed` and `error` `access_denied` (the
   * person chose Deny), `expired_token` (too late) or the server's error; with code `cancelled`
   * after {@link cancel} or an aborted `signal`.
   */
  wait(options?: DeviceWaitOptions): Promise<TokenSet>;
  /** Stops polling: a pending {@link wait} rejects with code `cancelled`. */
  cancel(): void;
}

/** RFC 8628 §3.5: what `slow_down` adds to the interval, in seconds. */
const SLOW_DOWN_SECONDS = 5;

/** Starts the device authorization grant (RFC 8628 §3.1) for the client (public or confidential). */
export async function startDeviceAuthorization(
  config: ClientConfig,
  options: DeviceAuthorizationOptions = {},
): Promise<DeviceAuthorization> {
  requireClientId(config, 'startDeviceAuthorization');
  const parameters = new URLSearchParams();
  if (options.scope !== undefined) parameters.set('scope', options.scope);
  for (const resource of typeof options.resource === 'string'
    ? [options.resource]
    : (options.resource ?? [])) {
    parameters.append('resource', resource);
  }
  let started: oauth.DeviceAuthorizationResponse;
  try {
    const response = await oauth.deviceAuthorizationRequest(
      config.as,
      config.client,
      config.clientAuth,
      parameters,
      config.http,
    );
    started = await oauth.processDeviceAuthorizationResponse(config.as, config.client, response);
  } catch (caught) {
    throw toClientError(caught, 'device_authorization_failed', 'Device authorization');
  }
  const cancelled = new AbortController();
  let interval = started.interval ?? 5;
  const deadline = config.now() + started.expires_in * 1000;

  async function wait(waitOptions: DeviceWaitOptions = {}): Promise<TokenSet> {
    const signals = [cancelled.signal, ...(waitOptions.signal ? [waitOptions.signal] : [])];
    const signal = signals.length === 1 ? cancelled.signal : AbortSignal.any(signals);
    for (;;) {
      await pause(interval, signal);
      if (config.now() >= deadline) {
        throw new GatehouseClientError(
          'device_authorization_failed',
          'Device authorization: the code expired.',
          {
            error: 'expired_token',
          },
        );
      }
      try {
        const response = await oauth.deviceCodeGrantRequest(
          config.as,
          config.client,
          config.clientAuth,
          started.device_code,
          { ...config.http, signal },
        );
        const result = await oauth.processDeviceCodeResponse(config.as, config.client, response);
        const tokens = toTokenSet(result, config.now());
        if (signal.aborted) throw cancelledError();
        await config.store.set(tokens);
        return tokens;
      } catch (caught) {
        if (signal.aborted) throw cancelledError();
        if (caught instanceof oauth.ResponseBodyError) {
          if (caught.error === 'authorization_pending') continue;
          if (caught.error === 'slow_down') {
            interval += SLOW_DOWN_SECONDS;
            continue;
          }
        }
        throw toClientError(caught, 'device_authorization_failed', 'Device authorization');
      }
    }
  }

  return {
    userCode: started.user_code,
    verificationUri: started.verification_uri,
    ...(started.verification_uri_complete === undefined
      ? {}
      : { verificationUriComplete: started.verification_uri_complete }),
    expiresIn: started.expires_in,
    get interval() {
      return interval;
    },
    wait,
    cancel: () => cancelled.abort(),
  };
}

function cancelledError(): GatehouseClientError {
  return new GatehouseClientError('cancelled', 'Device authorization: cancelled.');
}

/** Waits `seconds`, or rejects with `cancelled` as soon as `signal` aborts. */
function pause(seconds: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(cancelledError());
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, seconds * 1000);
    const onAbort = () => {
      clearTimeout(timer);
      reject(cancelledError());
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
