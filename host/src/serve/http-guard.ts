/**
 * The checks an HTTP request passes before its body is read, platform-neutral (strings in, a
 * refusal out) so the Node server and the edge worker refuse alike: content type (415), Origin
 * and Host (403, against browsers and DNS rebinding), bearer token (401, compared in constant
 * time over SHA-256 digests, so neither its length nor a prefix leaks through timing).
 */

/** An HTTP refusal: status, a JSON body `{ error: { code, message } }` and extra headers. */
export interface HttpRefusal {
  status: 400 | 401 | 403 | 404 | 405 | 408 | 413 | 415 | 431 | 503;
  code: string;
  message: string;
  headers?: Record<string, string>;
}

/** What a guard needs to know of the server. */
export interface HttpGuardOptions {
  /** The bearer token clients must present; absent: none is asked (loopback only). */
  token?: string;
  /** Origins allowed to call (exact `scheme://host[:port]`); a request with another Origin gets 403. Default none. */
  allowOrigins?: readonly string[];
  /** Host names a request may name in `Host` (loopback servers: localhost, 127.0.0.1, [::1]); absent: any. */
  allowHosts?: readonly string[];
}

/** The request headers a guard reads (lower-case names). */
export type HeaderLookup = (name: string) => string | undefined;

const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]'];

/** The Host names a server bound to `host` accepts: loopback names and its own address for a loopback bind, any otherwise. */
export function hostsFor(host: string): readonly string[] | undefined {
  if (!isLoopback(host)) return undefined;
  const own = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host.toLowerCase();
  return LOOPBACK_HOSTS.includes(own) ? LOOPBACK_HOSTS : [...LOOPBACK_HOSTS, own];
}

/** True for the addresses only this machine can reach. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/**
 * Refusal of a POST whose `Content-Type` is not `application/json` (parameters such as charset
 * allowed), or whose body is compressed: no content coding is decoded (a decoder would multiply
 * what the body bounds hold), so any but `identity` is 415, as RFC 9110 §15.5.16 asks.
 */
export function checkContentType(header: HeaderLookup): HttpRefusal | undefined {
  const codings = (header('content-encoding') ?? '').split(',').map((coding) => coding.trim().toLowerCase()).filter((coding) => coding !== '' && coding !== 'identity');
  if (codings.length > 0) {
    return { status: 415, code: 'unsupported-content-encoding', message: `Send the request body uncompressed: this server decodes no Content-Encoding (got ${JSON.stringify(codings.join(', ').slice(0, 200))}).`, headers: { 'accept-encoding': 'identity' } };
  }
  const type = (header('content-type') ?? '').split(';')[0]?.trim().toLowerCase();
  if (type === 'application/json') return undefined;
  return { status: 415, code: 'unsupported-media-type', message: `POST a JSON-RPC request with Content-Type: application/json (got ${type ? JSON.stringify(type) : 'none'}).` };
}

/** Refusal of a request from a browser page of another origin, or naming a Host this server is not. */
export function checkOrigin(header: HeaderLookup, options: HttpGuardOptions): HttpRefusal | undefined {
  const origin = header('origin');
  if (origin !== undefined && !(options.allowOrigins ?? []).includes(origin)) {
    return { status: 403, code: 'origin', message: `Requests from the origin ${JSON.stringify(origin.slice(0, 200))} are not allowed; start the server with --allow-origin for it.` };
  }
  if (options.allowHosts) {
    const name = hostName(header('host') ?? '');
    if (!options.allowHosts.includes(name)) {
      return { status: 403, code: 'host', message: `This server answers only to ${options.allowHosts.join(', ')} (the Host header named ${JSON.stringify(name.slice(0, 200))}).` };
    }
  }
  return undefined;
}

/**
 * Refusal of a request without the server's token: `Authorization: Bearer <token>`, or Basic
 * with the token as password (the reference host authenticates only with URL userinfo).
 */
export async function checkToken(header: HeaderLookup, token: string | undefined): Promise<HttpRefusal | undefined> {
  if (token === undefined) return undefined;
  const presented = presentedToken(header('authorization') ?? '');
  // Digest what was presented even when nothing was: the work done does not depend on the input.
  // The server's own token is digested once, not on every request.
  if (wanted?.token !== token) wanted = { token, digest: digest(token) };
  const [want, got] = await Promise.all([wanted.digest, digest(presented ?? '')]);
  let difference = presented === undefined ? 1 : 0;
  for (let i = 0; i < want.length; i++) difference |= (want[i] as number) ^ (got[i] as number);
  if (difference === 0) return undefined;
  return {
    status: 401,
    code: 'unauthorized',
    message: presented === undefined ? 'This server needs a token: send Authorization: Bearer <token>.' : 'The token presented is not this server\'s: check the token file or MEP_HTTP_TOKEN.',
    headers: { 'www-authenticate': 'Bearer realm="mep"' },
  };
}

function presentedToken(authorization: string): string | undefined {
  const [scheme, value] = authorization.trim().split(/\s+/, 2);
  if (!scheme || !value) return undefined;
  if (scheme.toLowerCase() === 'bearer') return value;
  if (scheme.toLowerCase() !== 'basic') return undefined;
  let decoded: string;
  try {
    decoded = atob(value);
  } catch {
    return undefined; // not base64: no token presented
  }
  const colon = decoded.indexOf(':');
  // An empty password presents nothing: it must never match a token set, by mistake, to ''.
  return colon < 0 || colon === decoded.length - 1 ? undefined : decoded.slice(colon + 1);
}

/** The digest of the last token checked against (a server has one). */
let wanted: { token: string; digest: Promise<Uint8Array> } | undefined;

async function digest(text: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
}

function hostName(host: string): string {
  if (host.startsWith('[')) return host.slice(0, host.indexOf(']') + 1);
  const colon = host.indexOf(':');
  return (colon < 0 ? host : host.slice(0, colon)).toLowerCase();
}

/**
 * The client a request's connection is counted as, for its share of the sessions (http-pool.ts):
 * its remote address as the socket has it, an IPv4-mapped IPv6 one as IPv4, an IPv6 one by its
 * /64 (one host is commonly given a whole /64). Never a header: `X-Forwarded-For` and `Forwarded`
 * are whatever the client writes. Behind a reverse proxy every client is the proxy's address.
 */
export function clientOfAddress(address: string | undefined): string {
  if (address === undefined || address === '') return 'unknown';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1] as string;
  if (!address.includes(':')) return address;
  const [head = '', tail = ''] = address.split('%')[0]?.split('::') ?? [];
  const front = head === '' ? [] : head.split(':');
  const back = address.includes('::') ? (tail === '' ? [] : tail.split(':')) : [];
  const groups = [...front, ...Array<string>(Math.max(0, 8 - front.length - back.length)).fill('0'), ...back];
  return `${groups.slice(0, 4).map((g) => g.toLowerCase().replace(/^0+(?=.)/, '')).join(':')}::/64`;
}
