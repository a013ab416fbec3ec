/**
 * How many steps it takes to follow one bearer check (issue 42 item 3): the Gatehouse functions a
 * reader steps into, and the `return` statements they execute, for one `withAuthentication` call of
 * `@gatehousejs/core/adapter` (what `requireAuth` of every adapter calls) with a valid token, once
 * not yet verified (signature checked) and once verified before (the cache answers).
 *
 * Counted mechanically, not by hand: V8's precise block coverage (call counts) over the core's
 * source, reset right before the one call and read right after it. "Functions entered" is the sum
 * of call counts of Gatehouse's own functions (packages/core/src: jose, the platform and the test's
 * callback are not counted, nor is the memory engine behind the store's `isRevoked`: storage/ is
not the check, and is the same before and after). "Returns
 * executed" is the sum, over `return` statements, of how many times the block holding each ran;
 * an arrow function with an expression body returns without the keyword and is counted as one
 * return per call. Steps = functions entered + returns executed.
 *
 * Run from a checkout's root: `node --import tsx bench/bearer-steps.mjs` (`--list` prints each
 * function entered).
 */
import inspector from 'node:inspector/promises';

// Block coverage counts only code compiled after it started: start it before loading Gatehouse.
const session = new inspector.Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Debugger.enable');
await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: true });

const { hashSecret, memoryGrantStore } = await import('../packages/core/src/engine/index.ts');
const {
  createGatehouse,
  generateKeys,
  memoryClientStore,
  memoryUserStore,
  pbkdf2Hasher,
  withMemoryFallback,
} = await import('../packages/core/src/index.ts');
const { withAuthentication } = await import('../packages/core/src/adapter/index.ts');

const LIST = process.argv.includes('--list');
const ISSUER = 'http://127.0.0.1:3000/demo';
const grants = memoryGrantStore();
const gatehouse = createGatehouse({
  issuer: ISSUER,
  keys: [await generateKeys('ES256')],
  clients: memoryClientStore([
    {
      id: 'demo-client',
      type: 'confidential',
      secretHash: await hashSecret('demo-secret'),
      redirectUris: [`${ISSUER}/cb`],
    },
  ]),
  users: memoryUserStore([], { hasher: pbkdf2Hasher({ iterations: 1000 }) }),
  storage: withMemoryFallback({ grants }),
  logger: { warn() {}, error() {} },
});
await gatehouse.ready();

async function mintToken() {
  const code = `code-${crypto.randomUUID()}`;
  await grants.saveCode({
    codeHash: await hashSecret(code),
    clientId: 'demo-client',
    userId: 'user-1',
    grantId: crypto.randomUUID(),
    redirectUri: `${ISSUER}/cb`,
    scope: 'openid',
    authTime: Date.now(),
    expiresAt: Date.now() + 600_000,
  });
  const response = await gatehouse.fetch(
    new Request(`${ISSUER}/oauth2/v1/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${btoa('demo-client:demo-secret')}`,
      },
      body: `grant_type=authorization_code&code=${code}&redirect_uri=${encodeURIComponent(`${ISSUER}/cb`)}`,
    }),
  );
  if (response.status !== 200) throw new Error(`mint failed: ${response.status}`);
  return (await response.json()).access_token;
}

const OPTIONS = { schemes: ['bearer'] };
const bearer = (token) =>
  new Request(`${ISSUER}/api/v1/things`, { headers: { authorization: `Bearer ${token}` } });
const check = async (token) => {
  const result = await withAuthentication(gatehouse, bearer(token), OPTIONS, (r) => r);
  if (!result.ok) throw new Error('refused');
};

// Warm every path once (first calls compile and fill module-level caches).
await check(await mintToken());
await check(await mintToken());

const sources = new Map();
async function sourceOf(scriptId) {
  if (!sources.has(scriptId))
    sources.set(scriptId, (await session.post('Debugger.getScriptSource', { scriptId })).scriptSource);
  return sources.get(scriptId);
}

async function measure(label, token) {
  await session.post('Profiler.takePreciseCoverage'); // resets the counters
  await check(token);
  const { result } = await session.post('Profiler.takePreciseCoverage');
  let entered = 0;
  let returns = 0;
  const lines = [];
  for (const script of result) {
    if (!script.url.includes('/packages/core/src/') || script.url.includes('/storage/')) continue;
    const source = await sourceOf(script.scriptId);
    const ranges = script.functions.flatMap((f) => f.ranges);
    /** The count of the innermost range holding `offset`: how often that code ran. */
    const countAt = (offset) => {
      let best;
      for (const r of ranges)
        if (r.startOffset <= offset && offset < r.endOffset)
          if (!best || r.endOffset - r.startOffset < best.endOffset - best.startOffset) best = r;
      return best ? best.count : 0;
    };
    for (const fn of script.functions) {
      const [whole] = fn.ranges;
      if (whole.count === 0 || whole.startOffset === 0) continue; // not called, or the module itself
      entered += whole.count;
      const text = source.slice(whole.startOffset, whole.endOffset);
      const file = script.url.replace(/^.*\/packages\/core\/src\//, '');
      lines.push(`  ${whole.count} × ${fn.functionName || '(anonymous)'} (${file})`);
      // An arrow function with an expression body returns its value without the keyword.
      if (/^(async\s*)?(\([^)]*\)|[\w$]+)\s*=>\s*[^{\s]/.test(text)) returns += whole.count;
    }
    for (const match of source.matchAll(/\breturn\b/g)) {
      const count = countAt(match.index);
      returns += count;
      if (count && LIST)
        lines.push(`    return × ${count}: ${source.slice(match.index, match.index + 50).split('\n')[0]}`);
    }
  }
  console.log(
    `${label}: ${entered} functions entered, ${returns} returns executed, ${entered + returns} steps`,
  );
  if (LIST) console.log(lines.join('\n'));
}

await measure('valid token, not verified before', await mintToken());
const hot = await mintToken();
await check(hot);
await measure('valid token, verified before (cached)', hot);
session.disconnect();
