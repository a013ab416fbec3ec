import { describe, expect, it } from 'vitest';
import { ISSUER, testInstance } from '../../test/fixtures';

/** A token request whose body sends `first`, then fails as a dripping upload timed out does. */
function cutShortRequest(first: string, contentLength?: number): Request {
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(first));
    },
    pull(controller) {
      controller.error(new DOMException('The request body timed out.', 'TimeoutError'));
    },
  });
  return new Request(`${ISSUER}/oauth2/v1/token`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/x-www-form-urlencoded',
      ...(contentLength === undefined ? {} : { 'Content-Length': String(contentLength) }),
    },
    body: stream,
    duplex: 'half',
  } as RequestInit);
}

describe('a request body that does not arrive in full', () => {
  it('is 400 invalid_request saying the body did not arrive, not that it was unreadable', async () => {
    const t = await testInstance();
    for (const request of [cutShortRequest('grant_type=client_cred'), cutShortRequest('grant_type=', 100)]) {
      const response = await t.gatehouse.fetch(request);
      expect(response.status).toBe(400);
      const body = (await response.json()) as { error: string; error_description: string };
      expect(body.error).toBe('invalid_request');
      expect(body.error_description).toMatch(
        /did not arrive in full: the connection was closed, or timed out/,
      );
    }
  });
});
