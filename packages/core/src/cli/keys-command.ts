import { generateKeys, publicJwkOf, type SigningAlgorithm } from '../tokens/keys.js';

/** What one run of the command prints, and its exit code. */
export interface CommandOutcome {
  readonly stdout: string;
  readonly stderr: string;
  readonly exitCode: number;
}

const ALGORITHMS: readonly SigningAlgorithm[] = ['ES256', 'EdDSA', 'RS256'];

/** The usage text of the `gatehouse` command. */
export const USAGE = `Usage: gatehouse keys generate [--alg ES256|EdDSA|RS256[,…]] [--openid] [--format json|env]

Generates signing keys for createGatehouse({ keys: [...] }).
  --alg      the JWS algorithm (default ES256); several, comma-separated, make one key each
  --openid   an OpenID Provider's set: ES256 (access tokens) and RS256 (ID tokens), as --alg ES256,RS256
  --format   json (default): {"privateJwk": …, "publicJwks": {"keys": […]}}
             (several keys: {"privateJwks": [… ], "publicJwks": {"keys": […]}})
             env:  GATEHOUSE_SIGNING_KEY='<private JWK>' (several keys: a JSON array of them)
             for a .env file or a secret manager

The private JWK is a secret: store it like a password, never in source control. Keep an old key
after the new one in \`keys\` for as long as tokens it signed may still be alive.

The admin API's commands: gatehouse admin --help
`;

/**
 * `gatehouse keys generate`: a private JWK (random `kid`) and the public JWKS that `{base}/oauth2/v1/keys`
 * will serve for it. Pure (arguments in, text out) so that it is tested without a process.
 */
export async function runKeysCommand(args: readonly string[]): Promise<CommandOutcome> {
  const usage = (message: string): CommandOutcome => ({
    stdout: '',
    stderr: `${message}\n\n${USAGE}`,
    exitCode: 2,
  });
  if (args.includes('--help') || args.includes('-h')) return { stdout: USAGE, stderr: '', exitCode: 0 };
  const [group, action, ...rest] = args;
  if (group !== 'keys' || action !== 'generate')
    return usage(`Unknown command: ${args.join(' ') || '(none)'}`);
  let algorithms: readonly SigningAlgorithm[] = ['ES256'];
  let format = 'json';
  for (let i = 0; i < rest.length; i += 2) {
    const [flag, value] = [rest[i], rest[i + 1]];
    if (flag === '--openid') {
      algorithms = ['ES256', 'RS256'];
      i -= 1; // a flag without a value
    } else if (flag === '--alg' && value !== undefined && isAlgorithmList(value))
      algorithms = [...new Set(value.split(','))] as SigningAlgorithm[];
    else if (flag === '--format' && (value === 'json' || value === 'env')) format = value;
    else return usage(`Unknown or incomplete option: ${[flag, value].filter(Boolean).join(' ')}`);
  }
  const privateJwks = [];
  for (const algorithm of algorithms) privateJwks.push(await generateKeys(algorithm));
  const single = privateJwks.length === 1 ? privateJwks[0] : undefined;
  if (format === 'env') {
    const value = JSON.stringify(single ?? privateJwks);
    return { stdout: `GATEHOUSE_SIGNING_KEY='${value}'\n`, stderr: '', exitCode: 0 };
  }
  const publicJwks = { keys: privateJwks.map((jwk, i) => publicJwkOf(jwk, algorithms[i]!)) };
  const output = single ? { privateJwk: single, publicJwks } : { privateJwks, publicJwks };
  return { stdout: `${JSON.stringify(output, null, 2)}\n`, stderr: '', exitCode: 0 };
}

/** `ES256`, or several known algorithms separated by commas. */
function isAlgorithmList(value: string): boolean {
  return value.split(',').every((name) => ALGORITHMS.includes(name as SigningAlgorithm));
}
