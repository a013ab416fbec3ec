/*
 * The arguments of `gatehouse admin`: positional words (the command and its operand) and
 * `--name value` / `--flag` options, each option known and given at most once. Pure.
 */

/** Options that take a value. */
const VALUED = new Set([
  'issuer',
  'client-id',
  'client-secret',
  'token',
  'scope',
  'type',
  'subject',
  'client',
  'since',
  'limit',
]);
/** Options without a value. */
const FLAGS = new Set(['json', 'now', 'self', 'help']);

/** Parsed arguments. */
export interface AdminArguments {
  readonly words: readonly string[];
  readonly options: Readonly<Record<string, string>>;
  readonly flags: ReadonlySet<string>;
}

/** Thrown for a malformed command line (exit code 2). */
export class UsageProblem extends Error {}

/** Splits `args` into words, valued options and flags; `--name=value` is accepted too. */
export function parseArguments(args: readonly string[]): AdminArguments {
  const words: string[] = [];
  const options: Record<string, string> = {};
  const flags = new Set<string>();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '-h') {
      flags.add('help');
      continue;
    }
    if (!arg.startsWith('--')) {
      words.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq === -1 ? undefined : eq);
    if (FLAGS.has(name) && eq === -1) {
      flags.add(name);
      continue;
    }
    if (!VALUED.has(name)) throw new UsageProblem(`Unknown option: --${name}`);
    const value = eq === -1 ? args[++i] : arg.slice(eq + 1);
    if (value === undefined || value === '' || (eq === -1 && value.startsWith('--')))
      throw new UsageProblem(`The option --${name} needs a value.`);
    if (Object.hasOwn(options, name)) throw new UsageProblem(`The option --${name} is given twice.`);
    options[name] = value;
  }
  return { words, options, flags };
}
