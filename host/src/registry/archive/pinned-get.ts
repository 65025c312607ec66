/**
 * One GET of an archive download whose host name is resolved once and checked before anything
 * connects: the address checked is the address connected to. `fetch` resolved each hop's name
 * itself, after the redirect check had looked at the URL's text only, so a redirect to
 * `http://inside.example/` (a name resolving to 10.0.0.5 or 169.254.169.254) was followed, and a
 * name resolving first to a public address and then, at the next hop or reconnection, to
 * 127.0.0.1 (DNS rebinding) reached this machine.
 *
 * A {@link AddressPins} holds, for one download, each name's addresses as first resolved; every
 * connection of that download to the name uses them. A download that starts on a public host
 * (the user's URL names one, or is a name that resolves to public addresses only) refuses every
 * later name with any address of this machine or its network (MepError ERR_REGISTRY,
 * `data.reason` `private-address`, `data.host`, `data.addresses`) before any connection. A
 * download that starts on a local host (an intranet server by name, an address, `localhost`) is
 * the user's choice and may stay within the network; its names are pinned all the same.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupAddress } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { Readable } from 'node:stream';
import { LocalErrorCode, MepError } from '../../protocol/errors.ts';

const local = new BlockList();
for (const [net, bits] of [['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12], ['192.168.0.0', 16]] as const) local.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10]] as const) local.addSubnet(net, bits, 'ipv6');

/** True when `address` (an IP literal, brackets allowed) is of this machine or its network; false for a name. */
export function isLocalAddress(address: string): boolean {
  const host = address.replace(/^\[|\]$/g, '').toLowerCase();
  const family = isIP(host);
  if (family === 4) return local.check(host, 'ipv4');
  if (family !== 6) return false;
  // An IPv4 address mapped into IPv6, in hex (the URL parser's ::ffff:7f00:1) or dotted (a resolver's ::ffff:127.0.0.1).
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(host);
  if (hex) {
    const [hi, lo] = [parseInt(hex[1] as string, 16), parseInt(hex[2] as string, 16)];
    return local.check(`${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`, 'ipv4');
  }
  const dotted = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(host);
  if (dotted) return local.check(dotted[1] as string, 'ipv4');
  return local.check(host, 'ipv6');
}

/** True when `url`'s host is written as an address of this machine or its network, or is `localhost`. */
export function isLocalHost(url: URL): boolean {
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return host === 'localhost' || host.endsWith('.localhost') || isLocalAddress(host);
}

/** How a download reaches the network; tests give their own resolver and address rule. */
export interface DownloadNetwork {
  /** Every address of a host name (the system resolver's `dns.lookup`, all of them). */
  resolve(hostname: string): Promise<LookupAddress[]>;
  /** True for an address of this machine or its network ({@link isLocalAddress}). */
  isLocalAddress(address: string): boolean;
  /** One GET, not following redirects, connecting through `lookup` (the default: {@link pinnedGet}). */
  get(url: URL, options: { signal: AbortSignal; lookup: LookupFunction }): Promise<Response>;
}

/** The network as it is: the system resolver, {@link isLocalAddress}, Node's http and https. */
export const SYSTEM_NETWORK: DownloadNetwork = Object.freeze({
  resolve: (hostname: string) => dnsLookup(hostname, { all: true, verbatim: true }),
  isLocalAddress,
  get: pinnedGet,
});

/** The addresses of each host name as first resolved during one download (see the module comment). */
export class AddressPins {
  readonly #pins = new Map<string, Promise<LookupAddress[]>>();
  /** Refuse names resolving to an address of this machine or its network; undecided until the first URL's name is resolved. */
  #publicOnly: boolean | undefined;
  /** The first URL's host name when it is a name (decides {@link #publicOnly} when resolved), else undefined. */
  readonly #firstName: string | undefined;
  constructor(
    private readonly network: DownloadNetwork,
    /** The download's first URL, as the user gave it. */
    first: URL,
    private readonly spec: string,
  ) {
    // Written as a local host, or as a public address: decided by the text; a name, by what it resolves to.
    const host = first.hostname.replace(/^\[|\]$/g, '').toLowerCase();
    const decided = isLocalHost(first) || isIP(host) !== 0;
    this.#firstName = decided ? undefined : host;
    this.#publicOnly = decided ? !isLocalHost(first) : undefined;
  }

  /** True once the download is known to start on a host of this machine or its network (then it may stay there). */
  get startsLocal(): boolean {
    return this.#publicOnly === false;
  }

  /** The pinned, checked addresses of `hostname`: resolved at its first use, the same after. */
  addresses(hostname: string): Promise<LookupAddress[]> {
    const key = hostname.toLowerCase();
    let pinned = this.#pins.get(key);
    if (pinned === undefined) {
      pinned = this.network.resolve(key).then((addresses) => this.#check(key, addresses));
      this.#pins.set(key, pinned);
    }
    return pinned;
  }

  #check(host: string, addresses: LookupAddress[]): LookupAddress[] {
    const locals = addresses.filter((a) => this.network.isLocalAddress(a.address));
    // The user's own URL decides: a name of the user's network starts a download that may stay in it.
    if (host === this.#firstName && this.#publicOnly === undefined && addresses.length > 0) this.#publicOnly = locals.length === 0;
    if (addresses.length === 0 || (this.#publicOnly !== false && locals.length > 0)) {
      const shown = addresses.map((a) => a.address);
      throw new MepError(
        LocalErrorCode.Registry,
        addresses.length === 0
          ? `Downloading ${this.spec}: ${host} resolves to no address. Check the URL.`
          : `Downloading ${this.spec}: ${host} resolves to ${locals.map((a) => a.address).join(', ')}, an address of this machine or its network, and the download did not start on such a host; nothing is sent there. If that server is yours, give mep install its address (http://${locals[0]?.address.includes(':') ? `[${locals[0]?.address}]` : locals[0]?.address}/…), or download the archive and install the file.`,
        { data: { source: this.spec, reason: addresses.length === 0 ? 'download' : 'private-address', host, addresses: shown } },
      );
    }
    return addresses;
  }

  /** A `lookup` for net.connect answering from the pins (one address or all, as asked). */
  lookup(): LookupFunction {
    return ((hostname: string, options: { family?: number | string; all?: boolean }, callback: (...args: unknown[]) => void) => {
      this.addresses(hostname).then(
        (addresses) => {
          const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : Number(options.family ?? 0);
          const usable = family === 4 || family === 6 ? addresses.filter((a) => a.family === family) : addresses;
          if (usable.length === 0) callback(Object.assign(new Error(`${hostname} has no IPv${family} address`), { code: 'ENOTFOUND' }));
          else if (options.all) callback(null, usable);
          else callback(null, (usable[0] as LookupAddress).address, (usable[0] as LookupAddress).family);
        },
        (error: unknown) => callback(error),
      );
    }) as LookupFunction;
  }
}

/** Statuses whose answer has no body (a Response with one cannot be made). */
const NULL_BODY = new Set([101, 204, 205, 304]);

/**
 * One GET of `url` with Node's http or https, connecting through `lookup`, as a web Response
 * (the body streamed, nothing decoded: no Accept-Encoding is sent). Redirects are not followed;
 * no agent: each hop its own connection, closed after it, nothing kept alive to hold `mep` open.
 */
export function pinnedGet(url: URL, options: { signal: AbortSignal; lookup: LookupFunction }): Promise<Response> {
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<Response>((resolve, reject) => {
    const request = send(url, { method: 'GET', agent: false, signal: options.signal, lookup: options.lookup, headers: { accept: '*/*', 'accept-encoding': 'identity' } }, (message: IncomingMessage) => {
      try {
        const headers = new Headers();
        for (let i = 0; i + 1 < message.rawHeaders.length; i += 2) headers.append(message.rawHeaders[i] as string, message.rawHeaders[i + 1] as string);
        const status = message.statusCode ?? 0;
        const body = NULL_BODY.has(status) ? null : (Readable.toWeb(message) as ReadableStream<Uint8Array>);
        if (body === null) message.resume();
        resolve(new Response(body, { status, statusText: message.statusMessage ?? '', headers }));
      } catch (error) {
        message.destroy();
        reject(error);
      }
    });
    request.on('error', reject);
    request.end();
  });
}
