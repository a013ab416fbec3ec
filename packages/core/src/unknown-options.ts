import { ConfigurationError } from './errors.js';
import { KNOWN_OPTIONS } from './known-options.generated.js';

type OptionTree = { readonly [name: string]: true | OptionTree };

/**
 * Refuses options that are no object, and option names `createGatehouse` does not know, with the nearest known name when there is
 * one (`scope` → "did you mean scopes?"): a misspelt option silently falling back to its default is
 * how security settings get lost. The known names are generated from `options.ts`, so they cannot
 * drift from the documented ones. Values are checked elsewhere; only option groups declared in
 * `options.ts` (`session`, `rateLimit`…) are walked, never host objects such as stores.
 */
export function refuseUnknownOptions(options: unknown): asserts options is object {
  if (!options || typeof options !== 'object')
    throw new ConfigurationError('createGatehouse: options are required.', {
      code: 'ERR_CONFIG_MISSING_OPTION',
    });
  check(options, KNOWN_OPTIONS as OptionTree, '');
}

function check(given: object, known: OptionTree, prefix: string): void {
  for (const [name, value] of Object.entries(given)) {
    const expected = Object.hasOwn(known, name) ? known[name] : undefined;
    if (expected === undefined) {
      const nearest = nearestName(name, Object.keys(known));
      throw new ConfigurationError(
        `${prefix}${name}: unknown option` + (nearest ? ` (did you mean "${prefix}${nearest}"?).` : '.'),
        { code: 'ERR_CONFIG_UNKNOWN_OPTION', option: `${prefix}${name}` },
      );
    }
    if (expected !== true && typeof value === 'object' && value !== null)
      check(value, expected, `${prefix}${name}.`);
  }
}

/** The known name closest to `name` (case-insensitive edit distance ≤ 2, or one contains the other). */
function nearestName(name: string, names: readonly string[]): string | undefined {
  const wanted = name.toLowerCase();
  let best: { name: string; distance: number } | undefined;
  for (const candidate of names) {
    const lower = candidate.toLowerCase();
    const distance =
      lower.includes(wanted) || wanted.includes(lower)
        ? Math.abs(lower.length - wanted.length)
        : editDistance(wanted, lower);
    if (distance <= 2 && (!best || distance < best.distance)) best = { name: candidate, distance };
  }
  return best?.name;
}

/** Levenshtein distance; the names compared are short option names. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(
        previous[j]! + 1,
        current[j - 1]! + 1,
        previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    previous = current;
  }
  return previous[b.length]!;
}
