import pg from 'pg';

/**
 * Connection strings listing several hosts, as libpq reads them
 * (`postgres://u@primary:5432,standby:5432/db?target_session_attrs=read-write`, PostgreSQL's
 * "Connection URIs" and "Specifying Multiple Hosts" in libpq's documentation), for a pool that
 * follows a failover: each new connection goes to the first host of the list that accepts it and
 * has the session kind `target_session_attrs` asks for. node-postgres reads a single host only (it
 * refuses such a string as an invalid URL), so the engine parses the list and connects through a
 * `pg.Client` subclass that picks the host.
 */

/** What `target_session_attrs` the engine supports: libpq's `any`, `read-write` and `primary`. */
export type TargetSessionAttrs = 'any' | 'read-write' | 'primary';

/** One host of the list. */
export interface ListedHost {
  readonly host: string;
  readonly port: number;
}

/** A connection string with its host list taken apart. */
export interface HostList {
  /** The string with the first host only and without `target_session_attrs`: what `pg` can read. */
  readonly connectionString: string;
  readonly hosts: readonly ListedHost[];
  readonly targetSessionAttrs: TargetSessionAttrs;
}

const URI = /^(postgres(?:ql)?:\/\/)([^@/?#]*@)?([^/?#]*)(.*)$/s;
const ATTRS: readonly TargetSessionAttrs[] = ['any', 'read-write', 'primary'];

/**
 * The host list of a `postgres://` URI, or `undefined` when it names one host and no
 * `target_session_attrs` (then `pg` reads it as it is). A host without a port gets 5432; IPv6
 * addresses are bracketed (`[::1]:5432`).
 */
export function parseHostList(connectionString: string): HostList | undefined {
  const match = URI.exec(connectionString);
  if (!match) return undefined;
  const [, scheme, userinfo = '', authority = '', rest = ''] = match as unknown as [
    string,
    string,
    string | undefined,
    string | undefined,
    string | undefined,
  ];
  const queryStart = rest.indexOf('?');
  const path = queryStart === -1 ? rest : rest.slice(0, queryStart);
  const query = new URLSearchParams(queryStart === -1 ? '' : rest.slice(queryStart + 1));
  const requested = query.get('target_session_attrs');
  if (!authority.includes(',') && requested === null) return undefined;
  const targetSessionAttrs = (requested ?? 'any') as TargetSessionAttrs;
  if (!ATTRS.includes(targetSessionAttrs))
    throw new TypeError(
      `postgres: target_session_attrs=${requested} is not supported (supported: ${ATTRS.join(', ')}).`,
    );
  const hosts = authority.split(',').map((entry): ListedHost => {
    const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
    const plain = /^([^:[\]]+)(?::(\d+))?$/.exec(entry);
    const found = bracketed ?? plain;
    if (!found) throw new TypeError(`postgres: cannot read the host "${entry}" of the connection string.`);
    return { host: found[1]!, port: found[2] === undefined ? 5432 : Number(found[2]) };
  });
  query.delete('target_session_attrs');
  const search = query.toString();
  const first = hosts[0]!;
  const firstHost = first.host.includes(':') ? `[${first.host}]` : first.host;
  return {
    connectionString: `${scheme}${userinfo}${firstHost}:${first.port}${path}${search ? `?${search}` : ''}`,
    hosts,
    targetSessionAttrs,
  };
}

/** Whether a connected client's session is of the kind asked for. */
async function sessionFits(client: pg.Client, attrs: TargetSessionAttrs): Promise<boolean> {
  if (attrs === 'any') return true;
  if (attrs === 'read-write') {
    const { rows } = await client.query<{ transaction_read_only: string }>('SHOW transaction_read_only');
    return rows[0]?.transaction_read_only === 'off';
  }
  const { rows } = await client.query<{ standby: boolean }>('SELECT pg_is_in_recovery() AS standby');
  return rows[0]?.standby === false;
}

/** Points a client not yet connected at `target`. */
function aim(client: pg.Client, target: ListedHost): void {
  client.host = target.host;
  client.port = target.port;
  // Read by the password lookup (`.pgpass`) and the TLS server name.
  const parameters = (client as unknown as { connectionParameters: { host: string; port: number } })
    .connectionParameters;
  parameters.host = target.host;
  parameters.port = target.port;
}

/**
 * A `pg.Client` class (for a pool's `Client` option) whose clients connect to the host of `list`
 * that fits its `target_session_attrs`. The host found last is remembered: a new connection goes
 * there, checks the session (one `SHOW`), and forgets the host when that fails or when any
 * connection to it breaks; the next connection then tries the hosts in list order, each with a
 * probe connection, as libpq does, and keeps the first that fits. A connection that finds its
 * remembered host gone or read-only fails (its request answers 503); the next one looks again.
 */
export function hostListClient(list: HostList): typeof pg.Client {
  let current: number | undefined;

  const findHost = async (config: pg.ClientConfig): Promise<number> => {
    const failures: string[] = [];
    for (const [index, target] of list.hosts.entries()) {
      // Aimed after construction: `pg` lets the connection string's host win over a `host` option.
      const probe = new pg.Client(config);
      aim(probe, target);
      probe.on('error', () => {});
      try {
        await probe.connect();
        if (await sessionFits(probe, list.targetSessionAttrs)) return index;
        failures.push(`${target.host}:${target.port} is not ${list.targetSessionAttrs}`);
      } catch (error) {
        failures.push(`${target.host}:${target.port}: ${(error as Error).message}`);
      } finally {
        await probe.end().catch(() => {});
      }
    }
    throw new Error(
      `postgres: no host of the list accepts a ${list.targetSessionAttrs} session (${failures.join('; ')})`,
    );
  };

  return class HostListClient extends pg.Client {
    readonly #config: pg.ClientConfig;

    constructor(config?: string | pg.ClientConfig) {
      super(config);
      this.#config = typeof config === 'string' ? { connectionString: config } : { ...config };
    }

    override connect(): Promise<pg.Client>;
    override connect(callback: (error: Error | null, client?: pg.Client) => void): void;
    override connect(
      callback?: (error: Error | null, client?: pg.Client) => void,
    ): Promise<pg.Client> | undefined {
      const connected = this.#connectToListedHost();
      if (!callback) return connected;
      connected.then(
        (client) => callback(null, client),
        (error: Error) => callback(error),
      );
      return undefined;
    }

    async #connectToListedHost(): Promise<pg.Client> {
      const index = current ?? (await findHost(this.#config));
      aim(this, list.hosts[index]!);
      try {
        await super.connect();
        if (!(await sessionFits(this, list.targetSessionAttrs))) {
          await this.end().catch(() => {});
          throw new Error(
            `postgres: ${list.hosts[index]!.host}:${list.hosts[index]!.port} no longer accepts a ${list.targetSessionAttrs} session`,
          );
        }
      } catch (error) {
        if (current === index) current = undefined;
        throw error;
      }
      current = index;
      // A broken connection may mean a failover: the next connection looks for the host again.
      this.on('error', () => {
        if (current === index) current = undefined;
      });
      return this;
    }
  };
}
