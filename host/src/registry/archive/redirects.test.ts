/**
 * Redirects of an archive download (`mep install <url>`). `fetch` followed them all: an https URL
 * redirected to plain http, and a public one redirected to this machine, were downloaded and
 * installed. Then only the URL's text was checked and `fetch` resolved names itself, so a name
 * resolving to this machine (at any hop, or at the second lookup of a name: DNS rebinding) was
 * reached. Here names resolve through the test's own resolver: 127.0.0.2 stands for a public
 * address (a server of the test listens there), everything else is judged as it really is.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { LocalErrorCode } from '../../protocol/errors.ts';
import { installExtension } from '../install.ts';
import { registryPaths } from '../paths.ts';
import { backend, makeTarGz, packageEntries, withProject, writePackage } from '../test-support.ts';
import type { TempProject } from '../test-support.ts';
import { fetchFollowingSafely, isLocalHost } from './redirects.ts';
import { isLocalAddress, pinnedGet } from './pinned-get.ts';
import type { DownloadNetwork } from './pinned-get.ts';

/** A server answering `/pkg.tgz` with a package and each other path with the redirect `routes` gives it. */
async function serve(t: TempProject, routes: Record<string, (port: number) => string>, host = '127.0.0.1', port0 = 0): Promise<{ server: Server; port: number; asked: string[] }> {
  const archive = makeTarGz(await packageEntries(await writePackage(join(t.root, 'pkg'), { id: 'acme.arc', capabilities: backend('arc') })));
  const asked: string[] = [];
  const server = createServer((request, response) => {
    asked.push(request.url ?? '');
    const to = routes[request.url ?? ''];
    if (to) response.writeHead(302, { location: to(port) }).end();
    else if (request.url === '/pkg.tgz') response.writeHead(200).end(archive);
    else response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(port0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return { server, port, asked };
}

/**
 * A network whose names resolve as `names` says (each lookup counted in `lookups`), where
 * 127.0.0.2 counts as public, and an https URL is sent as http to the same host and port.
 */
function testNetwork(names: Record<string, (n: number) => string[]>, lookups: Record<string, number> = {}): DownloadNetwork {
  return {
    resolve: async (name) => {
      const n = (lookups[name] = (lookups[name] ?? 0) + 1);
      const to = names[name];
      if (!to) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
      return to(n).map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    },
    isLocalAddress: (address) => address !== '127.0.0.2' && isLocalAddress(address),
    get: (url, options) => pinnedGet(new URL(url.href.replace(/^https:/, 'http:')), options),
  };
}

/** Downloads `url` through `network` as `mep install` does; the error, or the body's text. */
async function download(url: string, network: DownloadNetwork): Promise<{ code?: string; data?: { reason?: string; chain?: string[]; addresses?: string[] }; message?: string } | string> {
  try {
    const response = await fetchFollowingSafely(url, new AbortController().signal, url, network);
    return `${response.status} ${(await response.text()).length}`;
  } catch (error) {
    return error as { code: string };
  }
}

const Redirects = suite('registry :: redirects of an archive download');

Redirects('should refuse an https download redirected to plain http, naming the URLs, and request nothing over http', () =>
  withProject(async (t) => {
    const { server, port, asked } = await serve(t, { '/start.tgz': (p) => `http://secure.example:${p}/pkg.tgz` }, '127.0.0.2');
    try {
      const error = await download(`https://secure.example:${port}/start.tgz`, testNetwork({ 'secure.example': () => ['127.0.0.2'] }));
      assert.ok(typeof error === 'object');
      assert.equal([error.code, error.data?.reason], [LocalErrorCode.Registry, 'redirect-downgrade'], error.message);
      assert.equal(error.data?.chain, [`https://secure.example:${port}/start.tgz`, `http://secure.example:${port}/pkg.tgz`]);
      assert.match(error.message ?? '', /https:\/\/secure\.example:\d+\/start\.tgz -> http:\/\/secure\.example:\d+\/pkg\.tgz/);
      assert.equal(asked, ['/start.tgz'], 'the http URL was never requested');
    } finally {
      server.close();
    }
  }),
);

Redirects('should refuse a redirect from a public host to this machine or its network, and follow redirects within a local host the user named', () =>
  withProject(async (t) => {
    const victim = await serve(t, {});
    const { server, port, asked } = await serve(t, { '/start.tgz': () => `http://127.0.0.1:${victim.port}/pkg.tgz` }, '127.0.0.2');
    const local = await serve(t, { '/here.tgz': () => '/there.tgz', '/there.tgz': () => '/pkg.tgz', '/loop.tgz': () => '/loop.tgz' });
    const paths = registryPaths({ cwd: t.project });
    try {
      const error = await download(`http://public.example:${port}/start.tgz`, testNetwork({ 'public.example': () => ['127.0.0.2'] }));
      assert.ok(typeof error === 'object');
      assert.equal([error.code, error.data?.reason], [LocalErrorCode.Registry, 'redirect-private'], error.message);
      assert.equal([asked, victim.asked], [['/start.tgz'], []], 'the local address was never requested');
      const loop = await installExtension({ source: `http://127.0.0.1:${local.port}/loop.tgz`, paths }).catch((e) => e);
      assert.equal([loop.code, loop.data?.reason, loop.data?.chain.length], [LocalErrorCode.Registry, 'redirect-limit', 12], loop.message);
      const installed = await installExtension({ source: `http://127.0.0.1:${local.port}/here.tgz`, paths });
      assert.is(installed.id, 'acme.arc');
    } finally {
      for (const s of [server, victim.server, local.server]) s.close();
    }
  }),
);

Redirects('should refuse a redirect to a name that resolves to this machine or its network, before connecting to it :: dns', () =>
  withProject(async (t) => {
    const victim = await serve(t, {});
    const { server, port, asked } = await serve(t, { '/start.tgz': () => `http://inside.example:${victim.port}/pkg.tgz`, '/both.tgz': () => `http://both.example:${victim.port}/pkg.tgz` }, '127.0.0.2');
    const network = testNetwork({ 'public.example': () => ['127.0.0.2'], 'inside.example': () => ['127.0.0.1'], 'both.example': () => ['127.0.0.2', '::ffff:169.254.169.254', '127.0.0.1'] });
    try {
      for (const [start, host, addresses] of [['start', 'inside.example', ['127.0.0.1']], ['both', 'both.example', ['127.0.0.2', '::ffff:169.254.169.254', '127.0.0.1']]] as const) {
        const error = await download(`http://public.example:${port}/${start}.tgz`, network);
        assert.ok(typeof error === 'object', `followed to ${host}: ${String(error)}`);
        assert.equal([error.code, error.data?.reason, error.data?.addresses], [LocalErrorCode.Registry, 'private-address', addresses], error.message);
        assert.match(error.message ?? '', new RegExp(`${host} resolves to .*127\\.0\\.0\\.1.*download the archive and install the file`));
      }
      assert.equal([asked, victim.asked], [['/start.tgz', '/both.tgz'], []], 'nothing was sent to this machine');
    } finally {
      for (const s of [server, victim.server]) s.close();
    }
  }),
);

Redirects('should resolve each name once per download and connect to the address it checked, so a second answer (DNS rebinding) is never used :: rebinding', () =>
  withProject(async (t) => {
    // rebind.example answers a public address first, then this machine's, as a rebinding server does (TTL 0).
    const { server, port, asked } = await serve(t, { '/start.tgz': () => '/pkg.tgz' }, '127.0.0.2');
    const twin = await serve(t, {}, '127.0.0.1', port); // the same port on 127.0.0.1: where a second lookup would lead
    const lookups: Record<string, number> = {};
    const network = testNetwork({ 'rebind.example': (n) => [n === 1 ? '127.0.0.2' : '127.0.0.1'] }, lookups);
    try {
      const answer = await download(`http://rebind.example:${port}/start.tgz`, network);
      assert.type(answer, 'string', JSON.stringify(answer));
      assert.match(String(answer), /^200 [1-9]/);
      assert.equal([asked, twin.asked, lookups], [['/start.tgz', '/pkg.tgz'], [], { 'rebind.example': 1 }]);
    } finally {
      for (const s of [server, twin.server]) s.close();
    }
  }),
);

Redirects('should take the URL the user gave on a name of this network as theirs (an intranet server), pinned, and check names only when the download starts public :: first-hop', () =>
  withProject(async (t) => {
    const victim = await serve(t, { '/hop.tgz': () => `http://127.0.0.1:${victim.port}/pkg.tgz` });
    const lookups: Record<string, number> = {};
    const network = testNetwork({ 'artifacts.corp': () => ['127.0.0.1'] }, lookups);
    try {
      // An intranet name: downloaded from the address it resolved to, and it may redirect within the network.
      assert.match(String(await download(`http://artifacts.corp:${victim.port}/pkg.tgz`, network)), /^200 /);
      assert.match(String(await download(`http://artifacts.corp:${victim.port}/hop.tgz`, network)), /^200 /);
      assert.equal(victim.asked, ['/pkg.tgz', '/hop.tgz', '/pkg.tgz']);
      assert.equal(lookups, { 'artifacts.corp': 2 }, 'one lookup per download');
      // Written as this machine (an address): the user's choice, not resolved.
      assert.match(String(await download(`http://127.0.0.1:${victim.port}/pkg.tgz`, network)), /^200 /);
      assert.equal(lookups, { 'artifacts.corp': 2 });
    } finally {
      victim.server.close();
    }
  }),
);

Redirects('should take loopback, private, link-local and unspecified hosts however written as local, and public ones not', () => {
  for (const url of ['http://localhost/', 'http://a.localhost/', 'http://127.1/', 'http://2130706433/', 'http://0x7f000001/', 'http://10.1.2.3/', 'http://172.31.0.1/', 'http://192.168.1.1/', 'http://169.254.169.254/', 'http://100.64.0.1/', 'http://0.0.0.0/', 'http://[::1]/', 'http://[::]/', 'http://[fd00::1]/', 'http://[fe80::1]/', 'http://[::ffff:127.0.0.1]/', 'http://[::ffff:a9fe:a9fe]/']) {
    assert.ok(isLocalHost(new URL(url)), url);
  }
  for (const url of ['https://example.com/', 'http://8.8.8.8/', 'http://172.32.0.1/', 'http://[2001:db8::1]/', 'http://[::ffff:8.8.8.8]/', 'http://localhost.example.com/']) {
    assert.not.ok(isLocalHost(new URL(url)), url);
  }
});

Redirects.run();
