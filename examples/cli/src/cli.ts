/**
 * `gatehouse-demo`: a command-line tool of the Gatehouse demo that signs in the way `gh auth login`
 * does, with the device authorization grant (RFC 8628), as the demo's public client `demo-cli`.
 *
 *   gatehouse-demo login     shows a code and a URL, waits for you to approve in a browser
 *   gatehouse-demo tickets   lists your tickets (refreshing the access token silently)
 *   gatehouse-demo logout    revokes the tokens and forgets them
 *
 * The issuer is `GATEHOUSE_ISSUER` (default `http://localhost:3000/demo`, what `pnpm start` serves).
 * The refresh token lives in the user's config directory (see `credentials.ts`), mode 0600.
 */
import { createClient, type GatehouseClient, isGatehouseClientError } from '@gatehousejs/client';
import { configDirectory, fileTokenStore } from './credentials.js';

/** The demo's device client and what the tool asks for (examples/demo: `DEMO.cliClient`). */
export const CLI_CLIENT_ID = 'demo-cli';
export const CLI_SCOPE = 'openid profile offline_access tickets:read';
const DEFAULT_ISSUER = 'http://localhost:3000/demo';

/** Where the tool writes, and what it reads (the process's by default; tests pass their own). */
export interface CliIo {
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly out?: (line: string) => void;
  readonly err?: (line: string) => void;
  /** Aborting it cancels a login in progress (the bin wires Ctrl-C to it). */
  readonly signal?: AbortSignal;
}

const USAGE = `Usage: gatehouse-demo <command>

Commands:
  login     sign in with a code shown here, approved in your browser
  tickets   list your tickets
  logout    sign out (revokes the tokens)

Environment:
  GATEHOUSE_ISSUER            the Gatehouse instance (default ${DEFAULT_ISSUER})
  GATEHOUSE_DEMO_CONFIG_DIR   where to keep the sign-in (default: your config directory)`;

/** Runs one command; resolves with the process exit code. */
export async function main(argv: readonly string[], io: CliIo = {}): Promise<number> {
  const env = io.env ?? process.env;
  const out = io.out ?? ((line: string) => process.stdout.write(`${line}\n`));
  const err = io.err ?? ((line: string) => process.stderr.write(`${line}\n`));
  const issuer = (env.GATEHOUSE_ISSUER ?? DEFAULT_ISSUER).replace(/\/$/, '');
  const store = fileTokenStore(configDirectory(env), issuer, CLI_CLIENT_ID);
  const client = createClient({ baseUrl: issuer, clientId: CLI_CLIENT_ID, tokenStore: store, mode: 'oauth' });
  let signal = io.signal;
  if (!signal) {
    const controller = new AbortController();
    process.once('SIGINT', () => controller.abort());
    signal = controller.signal;
  }
  try {
    switch (argv[0]) {
      case 'login':
        return await login(client, out, signal);
      case 'tickets':
        return await tickets(client, out, err);
      case 'logout':
        await client.revoke();
        out('Signed out.');
        return 0;
      default:
        err(USAGE);
        return argv[0] === undefined || argv[0] === 'help' || argv[0] === '--help' ? 0 : 2;
    }
  } catch (error) {
    err(`gatehouse-demo: ${describe(error)}`);
    return 1;
  }
}

async function login(
  client: GatehouseClient,
  out: (line: string) => void,
  signal: AbortSignal,
): Promise<number> {
  const device = await client.startDeviceAuthorization({ scope: CLI_SCOPE });
  out(`To sign in, open ${device.verificationUri} and enter the code ${device.userCode}`);
  if (device.verificationUriComplete) out(`(or open ${device.verificationUriComplete})`);
  out('Check that the page shows this same code. Waiting…');
  const tokens = await device.wait({ signal });
  const name = tokens.claims?.name ?? tokens.claims?.sub;
  out(`Signed in${typeof name === 'string' ? ` as ${name}` : ''}.`);
  return 0;
}

async function tickets(
  client: GatehouseClient,
  out: (line: string) => void,
  err: (line: string) => void,
): Promise<number> {
  if (!(await client.getTokens())) {
    err('Not signed in: run `gatehouse-demo login` first.');
    return 1;
  }
  // `oauth` mode: the stored access token, refreshed first when it has expired (single flight).
  const response = await client.fetch('api/v1/tickets', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ limit: 5 }),
  });
  if (!response.ok) {
    err(`The tickets API answered ${response.status}.`);
    return 1;
  }
  const list = (await response.json()) as { tickets: { id: string; status: string; title: string }[] };
  for (const ticket of list.tickets) out(`${ticket.id}  ${ticket.status.padEnd(11)}  ${ticket.title}`);
  return 0;
}

function describe(error: unknown): string {
  if (isGatehouseClientError(error)) {
    if (error.code === 'cancelled') return 'cancelled.';
    if (error.error === 'access_denied') return 'access was denied in the browser.';
    if (error.error === 'expired_token') return 'the code expired; run `gatehouse-demo login` again.';
    if (error.code === 'refresh_failed' || error.code === 'no_token')
      return 'the sign-in is no longer valid; run `gatehouse-demo login` again.';
    return error.message;
  }
  return error instanceof Error ? error.message : String(error);
}
