import * as oauth from 'oauth4webapi';
import { GatehouseClientError, type GatehouseClientErrorCode } from './errors.js';

/**
 * Turns whatever a server call threw (an oauth4webapi error, a network failure) into a
 * {@link GatehouseClientError} with `code`, keeping the server's OAuth `error` and status.
 */
export function toClientError(
  error: unknown,
  code: GatehouseClientErrorCode,
  what: string,
): GatehouseClientError {
  if (error instanceof GatehouseClientError) return error;
  if (error instanceof oauth.ResponseBodyError) {
    return new GatehouseClientError(code, `${what}: the server answered ${error.status} ${error.error}.`, {
      error: error.error,
      errorDescription: error.error_description,
      status: error.status,
      cause: error,
    });
  }
  if (error instanceof oauth.WWWAuthenticateChallengeError) {
    const challenge = error.cause[0];
    const oauthError = challenge?.parameters.error;
    return new GatehouseClientError(
      code,
      `${what}: the server answered ${error.status}${oauthError ? ` ${oauthError}` : ''}.`,
      {
        error: oauthError ?? (error.status === 401 ? 'invalid_client' : undefined),
        errorDescription: challenge?.parameters.error_description,
        status: error.status,
        cause: error,
      },
    );
  }
  if (error instanceof TypeError && !(error instanceof oauth.OperationProcessingError)) {
    return new GatehouseClientError('network_error', `${what}: the request failed (${error.message}).`, {
      cause: error,
    });
  }
  if (error instanceof oauth.OperationProcessingError) {
    return new GatehouseClientError('invalid_response', `${what}: ${error.message}.`, { cause: error });
  }
  return new GatehouseClientError(
    code,
    `${what}: ${error instanceof Error ? error.message : String(error)}`,
    { cause: error },
  );
}

/** Reads an RFC 6749 §5.2-style error body from a non-2xx response, tolerating any body. */
export async function errorFromResponse(
  response: Response,
  code: GatehouseClientErrorCode,
  what: string,
): Promise<GatehouseClientError> {
  let body: { error?: unknown; error_description?: unknown } = {};
  try {
    body = (await response.json()) as typeof body;
  } catch {
    // not JSON: the status alone tells the story
  }
  const error = typeof body.error === 'string' ? body.error : undefined;
  const description = typeof body.error_description === 'string' ? body.error_description : undefined;
  return new GatehouseClientError(
    code,
    `${what}: the server answered ${response.status}${error ? ` ${error}` : ''}.`,
    {
      status: response.status,
      ...(error ? { error } : {}),
      ...(description ? { errorDescription: description } : {}),
    },
  );
}
