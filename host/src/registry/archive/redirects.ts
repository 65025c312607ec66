/**
 * Following the redirects of an archive download (`mep install https://…`) one by one, so each
 * hop is checked before it is requested. `fetch`'s own following took any hop: an https URL
 * redirected to http (the archive then came in the clear, open to change on the way unless a
 * `#sha256=` pin was given) or to this machine or its network (a public server made `mep` send
 * requests to 127.0.0.1, 169.254.169.254, 10.x, … and read what answered as an archive).
 *
 * Refused, as MepError(ERR_REGISTRY, `data.reason` `redirect-downgrade` / `redirect-private`,
 * `data.chain` the URLs in order): a hop from https to http; a hop to a host written as a
 * loopback, private, link-local, shared or unspecified address, or named `localhost`, from a URL
 * that was not on such a host (a URL the user gave on such a host may redirect within it). Not
 * checked: a host *name* that resolves to such an address (the resolution is fetch's, after this
 * check); give the final URL, or download the file and install it, to go where a refused hop led.
 * Past {@link MAX_ARCHIVE_REDIRECTS} hops, `redirect-limit`.
 */
import { BlockList, isIP } from 'node:net';
import { LocalErrorCode, MepError } from '../../protocol/errors.ts';

/** Redirects followed for one download (as browsers' 20, fewer: a package URL needs one or two). */
export const MAX_ARCHIVE_REDIRECTS = 10;

const local = new BlockList();
for (const [net, bits] of [['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12], ['192.168.0.0', 16]] as const) local.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10]] as const) local.addSubnet(net, bits, 'ipv6');

/** True when `url`'s host is written as an address of this machine or its network, or is `localhost`. */
export function isLocalHost(url: URL): boolean {
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  const family = isIP(host);
  if (family === 4) return local.check(host, 'ipv4');
  if (family !== 6) return false;
  // An IPv4 address mapped into IPv6 (::ffff:127.0.0.1; the URL parser writes it in hex).
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(host);
  if (mapped) {
    const [hi, lo] = [parseInt(mapped[1] as string, 16), parseInt(mapped[2] as string, 16)];
    return local.check(`${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`, 'ipv4');
  }
  return local.check(host, 'ipv6');
}

/**
 * Fetches `url`, following up to {@link MAX_ARCHIVE_REDIRECTS} redirects, each checked as the
 * module comment says; resolves with the final answer (not a redirect).
 *
 * @example
 * const response = await fetchFollowingSafely('https://example.com/a.tgz', signal, spec);
 */
export async function fetchFollowingSafely(url: string, signal: AbortSignal, spec: string, fetcher: typeof fetch = fetch): Promise<Response> {
  const chain = [url];
  for (;;) {
    const response = await fetcher(chain[chain.length - 1] as string, { redirect: 'manual', signal });
    const location = response.headers.get('location');
    if (response.status < 300 || response.status > 399 || location === null) return response;
    await response.body?.cancel();
    const from = new URL(chain[chain.length - 1] as string);
    const to = URL.canParse(location, from) ? new URL(location, from) : undefined;
    chain.push(to?.href ?? location);
    const refuse = (reason: string, what: string): MepError =>
      new MepError(LocalErrorCode.Registry, `Downloading ${spec}: ${what} (${chain.join(' -> ')}). If you trust where it leads, give that URL to mep install, or download the archive and install the file.`, {
        data: { source: spec, reason, chain },
      });
    if (to === undefined) throw refuse('redirect-invalid', 'a redirect names no valid URL');
    if (to.protocol !== 'https:' && to.protocol !== 'http:') throw refuse('redirect-scheme', `a redirect leads to ${to.protocol} URL, which is not downloaded`);
    if (from.protocol === 'https:' && to.protocol === 'http:') throw refuse('redirect-downgrade', 'an https download was redirected to plain http, where it could be read and changed on the way; the redirect is refused');
    if (isLocalHost(to) && !isLocalHost(from)) throw refuse('redirect-private', `a redirect leads to ${to.host}, an address of this machine or its network, from ${from.host}, which is not; the redirect is refused`);
    if (chain.length > MAX_ARCHIVE_REDIRECTS + 1) throw refuse('redirect-limit', `more than ${MAX_ARCHIVE_REDIRECTS} redirects`);
  }
}
