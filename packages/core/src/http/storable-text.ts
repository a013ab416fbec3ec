/**
 * Text that may reach a store. PostgreSQL's `text` and `jsonb` refuse NUL and unpaired UTF-16
 * surrogates (which have no UTF-8 encoding), so such a value would come back from the engine as a
 * 503; memory and Redis would take it. Refusing them here, before any storage call, answers every
 * engine alike with a 400. Other control characters have no place in an identifier or a protocol
 * value either (RFC 6749 Appendix A: `client_id`, `state`, `code`, … are printable ASCII), and in
 * a displayed name they can hide or reorder text.
 */

// C0 controls, DEL and C1 controls; a high surrogate not followed by a low one; a low one not
// preceded by a high one.
const UNSTORABLE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
  /[\u0000-\u001f\u007f-\u009f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/u;

/**
 * What is wrong with `value` as a stored or compared string: `'a control character'`,
 * `'an unpaired surrogate'`, or `undefined` when nothing is.
 */
export function unstorableText(value: string): string | undefined {
  const match = UNSTORABLE.exec(value);
  if (match === null) return undefined;
  const code = match[0].charCodeAt(0);
  return code >= 0xd800 && code <= 0xdfff ? 'an unpaired surrogate' : 'a control character';
}

/**
 * The first string in a parsed JSON value (keys included) that {@link unstorableText} refuses, as
 * `{ path, problem }`, or `undefined`. Walks at most `budget` nodes (the value came from a body
 * already capped in size, so this only guards against pathological nesting).
 */
export function unstorableJsonString(
  value: unknown,
  path = '',
  budget = { nodes: 100_000 },
): { readonly path: string; readonly problem: string } | undefined {
  if (--budget.nodes < 0) return undefined;
  if (typeof value === 'string') {
    const problem = unstorableText(value);
    return problem === undefined ? undefined : { path, problem };
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const entries = Array.isArray(value) ? value.entries() : Object.entries(value);
  for (const [key, member] of entries) {
    const at = Array.isArray(value) ? `${path}[${key}]` : path === '' ? String(key) : `${path}.${key}`;
    if (typeof key === 'string') {
      const problem = unstorableText(key);
      if (problem !== undefined)
        return { path: path === '' ? 'a member name' : `a member name in ${path}`, problem };
    }
    const found = unstorableJsonString(member, at, budget);
    if (found) return found;
  }
  return undefined;
}
