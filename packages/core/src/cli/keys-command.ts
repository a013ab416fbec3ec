import { generateKeys, publicJwkOf, type SigningAlgorithm } from '../tokens/keys.js';

/** What one run of the command prints, and its exit code. */
export interface CommandOutcome {
  readonly stdout: string;
  readonly stderr: string;
  readonly exitCode: number;
}

const ALGORITHMS: readonly SigningAlgorithm[] = ['ES256', 'EdDSA', 'RS256'];

/** The usage text of the `gatehouse` command. */
export const USAGE = `Usage: gatehouse keys generate [--alg ES256|EdDSA|RS256] [--format json|env]

Generates a signing key for createGatehouse({ keys: [...] }).
  --alg      the JWS algorithm (default ES256; RS256 for the ID tokens of OpenID Connect)
  --format   json (default): {"privateJwk": …, "publicJwks": {"keys": […]}}
             env:  GATEHOUSE_SIGNING_KEY='<private JWK>' for a .env file or a secret manager

The private JWK is a secret: store it like a password, never in source control. Keep an old key
after the new one in \`keys\` for as long as tokens it signed may still be alive.
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
  let algorithm: SigningAlgorithm = 'ES256';
  let format = 'json';
  for (let i = 0; i < rest.length; i += 2) {
    const [flag, value] = [rest[i], rest[i + 1]];
    if (flag === '--alg' && ALGORITHMS.includes(value as SigningAlgorithm))
      algorithm = value as SigningAlgorithm;
    else if (flag === '--format' && (value === 'json' || value === 'env')) format = value;
    else return usage(`Unknown or incomplete option: ${[flag, value].filter(Boolean).join(' ')}`);
  }
  const privateJwk = await generateKeys(algorithm);
  if (format === 'env') {
    return { stdout: `GATEHOUSE_SIGNING_KEY='${JSON.stringify(privateJwk)}'\n`, stderr: '', exitCode: 0 };
  }
  const output = { privateJwk, publicJwks: { keys: [publicJwkOf(privateJwk, algorithm)] } };
  return { stdout: `${JSON.stringify(output, null, 2)}\n`, stderr: '', exitCode: 0 };
}
