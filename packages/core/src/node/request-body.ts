/** Reading a Node request body: streamed, or buffered when small and of known length. */
import type { IncomingMessage } from 'node:http';
import { fetchAcceptsMethod } from './fetch-method.js';

/** The body length if `readWebRequest` should read the body into memory, else `undefined`. */
export function bufferableLength(
  req: IncomingMessage,
  options: { readonly ignoreBody?: boolean },
  limit: number,
): number | undefined {
  const method = req.method ?? 'GET';
  if (options.ignoreBody || method === 'GET' || method === 'HEAD' || req.readableEnded) return undefined;
  if (!fetchAcceptsMethod(method)) return undefined; // built without a body, never read
  if (req.headers['transfer-encoding'] !== undefined) return undefined;
  const declared = req.headers['content-length'];
  if (declared === undefined || !/^\d+$/.test(declared)) return undefined;
  const length = Number(declared);
  return length > 0 && length <= limit ? length : undefined;
}

/**
 * Reads a body whose length Node's parser enforces (RFC 9112 §6.2), so at most `length` bytes
 * arrive. Fails if the client goes away before the end.
 */
export function readSmallBody(req: IncomingMessage, length: number): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.byteLength;
    };
    const detach = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onFailure);
      req.off('aborted', onFailure);
      req.off('close', onClose);
    };
    const onEnd = () => {
      detach();
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, Math.min(size, length)));
    };
    const onFailure = () => {
      detach();
      // Closed or reset by the client, or by the server timing a slow body out (`requestTimeout`).
      reject(new Error('The connection ended before the whole request body arrived.'));
    };
    // `close` without `end` (no `error` listener of Node's own would report it otherwise).
    const onClose = () => {
      if (!req.complete) onFailure();
    };
    // `on`, not `once`: the first of them to fire detaches them all, and `once` would wrap each in
    // a closure of its own (and make removing it a search for the wrapped listener).
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onFailure);
    req.on('aborted', onFailure);
    req.on('close', onClose);
  });
}

/** A body stream that fails at once: what a reader of a body cut short should see. */
export function failedBody(error: Error): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.error(error);
    },
  });
}

export function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/** RFC 9112 §6.3: a request has a body iff it has `Transfer-Encoding` or a non-zero `Content-Length`. */
export function hasBody(req: IncomingMessage): boolean {
  if (req.headers['transfer-encoding'] !== undefined) return true;
  const length = req.headers['content-length'];
  return length !== undefined && length !== '0';
}

/**
 * A pull-based stream over the request: it touches the Node stream only once someone reads
 * (high-water mark 0), and then only as fast as they read.
 */
export function streamBody(req: IncomingMessage): ReadableStream<Uint8Array> {
  let onData: (chunk: Buffer) => void;
  let onEnd: () => void;
  let onError: (error: Error) => void;
  const detach = () => {
    req.off('data', onData);
    req.off('end', onEnd);
    req.off('error', onError);
  };
  let attached = false;
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (attached) {
          req.resume();
          return;
        }
        attached = true;
        onData = (chunk) => {
          controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
          if ((controller.desiredSize ?? 0) <= 0) req.pause();
        };
        onEnd = () => {
          detach();
          controller.close();
        };
        onError = (error) => {
          detach();
          controller.error(error);
        };
        req.on('data', onData);
        req.once('end', onEnd);
        req.once('error', onError);
        req.resume();
      },
      cancel() {
        // The consumer gave up (e.g. a 413): discard the rest instead of destroying the socket, so
        // the answer can still be delivered.
        if (attached) detach();
        req.resume();
      },
    },
    { highWaterMark: 0 },
  );
}
