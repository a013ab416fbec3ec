import type { Redis } from 'ioredis';
import type { RedisClient } from './script.js';

/**
 * Calls `send`, which issues commands on `client`, so that they leave in one write: the socket is
 * corked while they are issued and uncorked right after, in the same tick. They stay separate
 * commands, not a pipeline, so that ioredis re-sends each one whose reply a dropped connection
 * lost (it aborts the rest of a pipeline that was partly answered), and a single server runs them
 * in the order issued. Without corking, each command is its own write; a busy process can be
 * descheduled between them, and the server may answer the first before the next arrives. A
 * Cluster client writes to several nodes: `send` runs as is.
 */
export function sendTogether<T>(client: RedisClient, send: () => T): T {
  const stream = client.isCluster ? undefined : (client as Redis).stream;
  stream?.cork();
  try {
    return send();
  } finally {
    stream?.uncork();
  }
}
