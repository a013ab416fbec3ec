/**
 * Requests the server makes on a client's behalf to a URL the client registered (a `jwks_uri`).
 * Whoever registers the URL chooses where the server connects, so every such request is guarded
 * (RFC 7591 §5, RFC 9700 §4.16 on server-side request forgery): https only (http for loopback
 * hosts, for development), no private-network targets unless the host allows them, no redirects,
 * a timeout and a cap on the bytes read.
 *
 * Runtime-neutral, so hosts are judged by their name or literal address: a public name that
 * resolves to a private address is not detected here. Hosts that need that check pass a `fetch`
 * that pins and checks the resolved address (e.g. an undici dispatcher with a `lookup` filter).
 */

/** How outbound requests are bounded (resolved from the `clientJwks` option). */
export interface OutboundFetchPolicy {
  /** Milliseconds before the request (headers and body) is abandoned. */
  readonly timeoutMs: number;
  /** Most bytes read from the response body. */
  readonly maxBytes: number;
  /** `true`: any private-network host; a list: these host names (as in the URL) only. */
  readonly allowPrivateNetwork: boolean | readonly string[];
  /** The fetch implementation (default the runtime's). */
  readonly fetch: typeof fetch;
}

/** Why an outbound request was refused or failed; the message names the URL's host only. */
export class OutboundFetchError extends Error {
  override readonly name = 'OutboundFetchError';
}

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Whether `hostname` (as `URL.hostname` normalises it) is a loopback host. */
export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK_NAMES.has(hostname) || hostname.endsWith('.localhost') || /^127\./.test(hostname);
}

/**
 * Whether `hostname` names a host outside the public Internet: loopback, private, link-local,
 * shared, reserved and multicast IPv4/IPv6 literals (RFC 6890), and names reserved for local use
 * (`localhost`, `.local`, `.internal`, `.home.arpa`, names without a dot).
 */
export function isPrivateHost(hostname: string): boolean {
  if (hostname.startsWith('[')) return isPrivateIpv6(hostname.slice(1, -1));
  const ipv4 = parseIpv4(hostname);
  if (ipv4) return isPrivateIpv4(ipv4);
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return (
    !name.includes('.') ||
    name === 'localhost' ||
    ['.localhost', '.local', '.internal', '.home.arpa', '.lan'].some((suffix) => name.endsWith(suffix))
  );
}

function parseIpv4(hostname: string): number[] | undefined {
  // `URL` already turned every IPv4 spelling (hex, octal, short forms) into dotted decimal.
  const match = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(hostname);
  return match ? match.slice(1).map(Number) : undefined;
}

function isPrivateIpv4([a, b]: number[]): boolean {
  return (
    a === 0 ||
    a === 10 ||
    a === 127 ||
    a! >= 224 ||
    (a === 100 && b! >= 64 && b! <= 127) ||
    (a === 169 && b === 254) ||
    (a === 172 && b! >= 16 && b! <= 31) ||
    (a === 192 && (b === 168 || b === 0)) ||
    (a === 198 && (b === 18 || b === 19))
  );
}

function isPrivateIpv6(address: string): boolean {
  const lower = address.toLowerCase();
  if (lower === '::' || lower === '::1') return true;
  const mapped =
    /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower) ?? /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (mapped) {
    const v4 =
      mapped.length === 2
        ? parseIpv4(mapped[1]!)
        : [
            Number.parseInt(mapped[1]!, 16) >> 8,
            Number.parseInt(mapped[1]!, 16) & 255,
            Number.parseInt(mapped[2]!, 16) >> 8,
            Number.parseInt(mapped[2]!, 16) & 255,
          ];
    return v4 === undefined || isPrivateIpv4(v4);
  }
  const first = Number.parseInt(lower.split(':')[0] || '0', 16);
  // fc00::/7 unique local, fe80::/10 link-local, ff00::/8 multicast, 64:ff9b::/96 NAT64 and friends.
  return (first & 0xfe00) === 0xfc00 || (first & 0xffc0) === 0xfe80 || first >= 0xff00 || first === 0x64;
}

/**
 * `url` parsed, if the policy lets the server fetch it: https (http only for a loopback host), no
 * credentials in it, and a public host unless `allowPrivateNetwork` covers it. Throws
 * {@link OutboundFetchError} otherwise.
 */
export function checkOutboundUrl(url: string, policy: Pick<OutboundFetchPolicy, 'allowPrivateNetwork'>): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new OutboundFetchError('The URL is not an absolute URL.');
  }
  if (parsed.protocol !== 'https:' && !(parsed.protocol === 'http:' && isLoopbackHost(parsed.hostname))) {
    throw new OutboundFetchError(`${parsed.host}: only https URLs are fetched (http for loopback hosts).`);
  }
  if (parsed.username || parsed.password) throw new OutboundFetchError('The URL carries credentials.');
  const allowed = policy.allowPrivateNetwork;
  if (
    isPrivateHost(parsed.hostname) &&
    allowed !== true &&
    !(Array.isArray(allowed) && allowed.includes(parsed.hostname))
  ) {
    throw new OutboundFetchError(
      `${parsed.host}: a private-network host, not fetched (see the allowPrivateNetwork option).`,
    );
  }
  return parsed;
}

/**
 * GETs `url` under `policy` and parses the body as JSON. Refuses redirects (the target could be
 * anywhere), non-200 answers, bodies over `maxBytes` (counted while reading, whatever
 * `Content-Length` says) and anything slower than `timeoutMs`. Throws {@link OutboundFetchError}.
 */
export async function fetchJson(url: string, policy: OutboundFetchPolicy): Promise<unknown> {
  const target = checkOutboundUrl(url, policy);
  const signal = AbortSignal.timeout(policy.timeoutMs);
  let response: Response;
  try {
    response = await policy.fetch(target.href, {
      headers: { Accept: 'application/json' },
      redirect: 'manual',
      signal,
    });
  } catch {
    throw new OutboundFetchError(`${target.host}: the request failed or timed out.`);
  }
  if (response.status !== 200) {
    await response.body?.cancel().catch(() => {});
    throw new OutboundFetchError(`${target.host}: answered ${response.status}, expected 200.`);
  }
  const text = await readCapped(response, policy.maxBytes, target.host);
  try {
    return JSON.parse(text);
  } catch {
    throw new OutboundFetchError(`${target.host}: the body is not JSON.`);
  }
}

async function readCapped(response: Response, maxBytes: number, host: string): Promise<string> {
  const declared = Number(response.headers.get('content-length'));
  if (declared > maxBytes) {
    await response.body?.cancel().catch(() => {});
    throw new OutboundFetchError(`${host}: the body is larger than ${maxBytes} bytes.`);
  }
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel().catch(() => {});
        throw new OutboundFetchError(`${host}: the body is larger than ${maxBytes} bytes.`);
      }
      chunks.push(value);
    }
  } catch (error) {
    if (error instanceof OutboundFetchError) throw error;
    throw new OutboundFetchError(`${host}: reading the body failed or timed out.`);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(bytes);
}
