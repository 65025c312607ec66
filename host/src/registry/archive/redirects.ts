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
 * that was not on such a host (a URL the user gave on such a host may redirect within it). A host
 * *name* is resolved once per download and its addresses checked before connecting, unless the
 * user's URL is on a local host, written so or by what its name resolves to: an intranet server
 * given by name is the user's choice (`pinned-get.ts`: `private-address`).
 * Give the final URL, or download the file and install it, to go where a refused hop led.
 * Past {@link MAX_ARCHIVE_REDIRECTS} hops, `redirect-limit`.
 */
import { LocalErrorCode, MepError } from '../../protocol/errors.ts';
import { AddressPins, isLocalHost, SYSTEM_NETWORK } from './pinned-get.ts';
import type { DownloadNetwork } from './pinned-get.ts';

export { isLocalHost } from './pinned-get.ts';

/** Redirects followed for one download (as browsers' 20, fewer: a package URL needs one or two). */
export const MAX_ARCHIVE_REDIRECTS = 10;

/**
 * Fetches `url`, following up to {@link MAX_ARCHIVE_REDIRECTS} redirects, each checked as the
 * module comment says; resolves with the final answer (not a redirect).
 *
 * @example
 * const response = await fetchFollowingSafely('https://example.com/a.tgz', signal, spec);
 */
export async function fetchFollowingSafely(url: string, signal: AbortSignal, spec: string, network: DownloadNetwork = SYSTEM_NETWORK): Promise<Response> {
  const chain = [url];
  // Every name of the download is resolved once, and checked unless the user's URL is on a local host.
  const pins = new AddressPins(network, new URL(url), spec);
  for (;;) {
    const response = await network.get(new URL(chain[chain.length - 1] as string), { signal, lookup: pins.lookup() });
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
    if (isLocalHost(to) && !pins.startsLocal) throw refuse('redirect-private', `a redirect leads to ${to.host}, an address of this machine or its network, from ${from.host}, which is not; the redirect is refused`);
    if (chain.length > MAX_ARCHIVE_REDIRECTS + 1) throw refuse('redirect-limit', `more than ${MAX_ARCHIVE_REDIRECTS} redirects`);
  }
}
