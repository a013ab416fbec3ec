import { parseArguments, UsageProblem } from './admin/arguments.js';
import { ADMIN_COMMANDS, findCommand } from './admin/commands.js';
import { accessToken, callAdmin, type Fetch, Refused, Unreachable } from './admin/connection.js';
import type { CommandOutcome } from './keys-command.js';

/** Exit codes of `gatehouse admin`, for scripts. */
export const ADMIN_EXIT_CODES = {
  /** Done. */
  ok: 0,
  /** The instance refused (bad credentials, missing scope, not designated, unknown id) or failed. */
  refused: 1,
  /** The command line is wrong (unknown command or option, missing operand or credentials). */
  usage: 2,
  /** The instance could not be reached. */
  network: 3,
} as const;

const width = Math.max(
  ...ADMIN_COMMANDS.map((c) => [c.name, c.operand, c.options].filter(Boolean).join(' ').length),
);

/** The usage text of `gatehouse admin`. */
export const ADMIN_USAGE = `Usage: gatehouse admin <command> --issuer <url> (--client-id <id> --client-secret <secret> | --token <token>) [--json]

Calls the admin API of a Gatehouse instance ({issuer}/admin/v1/).
Commands:
${ADMIN_COMMANDS.map((c) => `  ${[c.name, c.operand, c.options].filter(Boolean).join(' ').padEnd(width)}  ${c.summary}`).join('\n')}

Options:
  --issuer         the instance's issuer, e.g. https://auth.example.com (env GATEHOUSE_ISSUER)
  --client-id      a client allowed the admin scope, with the client credentials grant
  --client-secret  its secret (env GATEHOUSE_CLIENT_ID, GATEHOUSE_CLIENT_SECRET)
  --token          an access token carrying the admin scope instead (env GATEHOUSE_ADMIN_TOKEN)
  --scope          the admin scope to ask for (default gatehouse:admin)
  --json           print the API's JSON answer instead of a table

Exit codes: 0 done, 1 refused or failed by the instance, 2 wrong command line, 3 instance not reached.
`;

/** What `gatehouse admin` reads besides its arguments. */
export interface AdminCommandEnvironment {
  /** Environment variables (`process.env`). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** The `fetch` to use. Default: the runtime's. */
  readonly fetch?: Fetch;
}

/**
 * `gatehouse admin <command>`: one admin API call, its answer as a table (or `--json`), and an exit
 * code scripts can use ({@link ADMIN_EXIT_CODES}). Never throws.
 */
export async function runAdminCommand(
  args: readonly string[],
  environment: AdminCommandEnvironment = {},
): Promise<CommandOutcome> {
  const env = environment.env ?? {};
  const fetch = environment.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const usage = (message: string): CommandOutcome => ({
    stdout: '',
    stderr: `${message}\n\n${ADMIN_USAGE}`,
    exitCode: ADMIN_EXIT_CODES.usage,
  });
  let parsed: ReturnType<typeof parseArguments>;
  let found: ReturnType<typeof findCommand>;
  try {
    parsed = parseArguments(args);
    if (parsed.flags.has('help')) return { stdout: ADMIN_USAGE, stderr: '', exitCode: 0 };
    found = findCommand(parsed.words);
  } catch (error) {
    if (error instanceof UsageProblem) return usage(error.message);
    throw error;
  }
  const { options, flags } = parsed;
  const issuer = (options.issuer ?? env.GATEHOUSE_ISSUER ?? '').replace(/\/+$/, '');
  if (!/^https?:\/\/[^/]/.test(issuer)) return usage("--issuer is required (the instance's issuer URL).");
  const token = options.token ?? env.GATEHOUSE_ADMIN_TOKEN;
  const clientId = options['client-id'] ?? env.GATEHOUSE_CLIENT_ID;
  const clientSecret = options['client-secret'] ?? env.GATEHOUSE_CLIENT_SECRET;
  if (token === undefined && (clientId === undefined || clientSecret === undefined))
    return usage('Give --token, or --client-id and --client-secret (or their environment variables).');
  const { command, operand } = found;
  try {
    const scope = options.scope ?? 'gatehouse:admin';
    const credentials =
      token === undefined
        ? { issuer, scope, clientId: clientId!, clientSecret: clientSecret! }
        : { issuer, scope, token };
    const bearer = await accessToken(fetch, credentials);
    const request = command.request(operand, parsed);
    const answer = await callAdmin(fetch, issuer, bearer, request.method, request.path, request.body);
    const stdout = flags.has('json')
      ? `${JSON.stringify(answer.body, null, 2)}\n`
      : command.show(answer.body, operand);
    return { stdout, stderr: '', exitCode: ADMIN_EXIT_CODES.ok };
  } catch (error) {
    if (error instanceof Refused)
      return {
        stdout: flags.has('json') ? `${JSON.stringify(error.body, null, 2)}\n` : '',
        stderr: `gatehouse admin ${command.name}: ${error.message}\n`,
        exitCode: ADMIN_EXIT_CODES.refused,
      };
    if (error instanceof Unreachable)
      return {
        stdout: '',
        stderr: `gatehouse admin ${command.name}: ${error.message}\n`,
        exitCode: ADMIN_EXIT_CODES.network,
      };
    return {
      stdout: '',
      stderr: `gatehouse admin ${command.name}: ${error instanceof Error ? error.message : String(error)}\n`,
      exitCode: ADMIN_EXIT_CODES.refused,
    };
  }
}
