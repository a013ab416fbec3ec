/**
 * A TCP proxy on a free loopback port in front of a server (Redis, PostgreSQL, PgBouncer), through
 * which the tests take the network away: {@link TcpFaultProxy.cut} drops every connection and
 * refuses new ones (a cable pulled, a firewall rejecting), {@link TcpFaultProxy.stall} keeps every
 * connection open but lets no byte through either way and holds new ones unanswered (a partition
 * TCP is still retrying across); {@link TcpFaultProxy.restore} lets traffic flow again (what a
 * stall held is delivered then).
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

/** A proxy the test can cut, stall and restore. */
export interface TcpFaultProxy {
  readonly port: number;
  /** Drops every connection and closes the port until {@link restore}. */
  cut(): Promise<void>;
  /** Holds every byte of every connection, and every new connection, until {@link restore}. */
  stall(): void;
  /** Lets traffic through again: reopens the port after a cut, releases what a stall held. */
  restore(): Promise<void>;
  /** Drops everything and closes the port for good. */
  close(): Promise<void>;
}

/** Opens a proxy on a free loopback port to `target`. */
export async function startTcpFaultProxy(target: { host: string; port: number }): Promise<TcpFaultProxy> {
  const sockets = new Set<Socket>();
  let stalled = false;
  /** Bytes that arrived during a stall, in order, each with where it goes: delivered on restore. */
  let pending: [Socket, Buffer][] = [];
  /** Client connections accepted during a stall, connected upstream on restore. */
  let held: Socket[] = [];

  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  };
  // Not pipe(): a stalled relay must deliver nothing, even when a write pending before it drains.
  const relay = (from: Socket, to: Socket) => {
    from.on('data', (chunk: Buffer) => {
      if (stalled) pending.push([to, chunk]);
      else to.write(chunk);
    });
    from.once('end', () => to.end());
  };
  const join = (client: Socket) => {
    const upstream = connect(target.port, target.host);
    track(upstream);
    for (const socket of [client, upstream]) {
      socket.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
      socket.once('close', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    relay(client, upstream);
    relay(upstream, client);
  };
  const makeServer = () =>
    createServer((client) => {
      track(client);
      if (stalled) {
        client.on('error', () => client.destroy());
        held.push(client);
        return;
      }
      join(client);
    });
  const listen = (server: Server, port: number) =>
    new Promise<number>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve((server.address() as { port: number }).port));
    });
  let server: Server | undefined = makeServer();
  const port = await listen(server, 0);

  const cut = async () => {
    stalled = false;
    held = [];
    pending = [];
    const closing = server;
    server = undefined;
    for (const socket of sockets) socket.destroy();
    if (closing) await new Promise<void>((resolve) => closing.close(() => resolve()));
  };
  return {
    port,
    cut,
    stall() {
      stalled = true;
    },
    async restore() {
      if (stalled) {
        stalled = false;
        const delivered = pending;
        pending = [];
        for (const [to, chunk] of delivered) if (!to.destroyed) to.write(chunk);
        const waiting = held;
        held = [];
        for (const client of waiting) if (!client.destroyed) join(client);
      }
      if (!server) {
        server = makeServer();
        await listen(server, port);
      }
    },
    close: cut,
  };
}
