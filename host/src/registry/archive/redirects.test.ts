/**
 * Redirects of an archive download (`mep install <url>`). `fetch` followed them all: an https URL
 * redirected to plain http, and a public one redirected to this machine, were downloaded and
 * installed. The public and https hosts are names this test maps to a local server.
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
import { isLocalHost } from './redirects.ts';

/** A server answering `/pkg.tgz` with a package and each other path with the redirect `routes` gives it. */
async function serve(t: TempProject, routes: Record<string, (port: number) => string>): Promise<{ server: Server; port: number; asked: string[] }> {
  const archive = makeTarGz(await packageEntries(await writePackage(join(t.root, 'pkg'), { id: 'acme.arc', capabilities: backend('arc') })));
  const asked: string[] = [];
  const server = createServer((request, response) => {
    asked.push(request.url ?? '');
    const to = routes[request.url ?? ''];
    if (to) response.writeHead(302, { location: to(port) }).end();
    else if (request.url === '/pkg.tgz') response.writeHead(200).end(archive);
    else response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, port, asked };
}

/** Runs `fn` with `fetch` sending requests for `*.example` (http or https) to the local server on `port`. */
async function withNamesMapped<T>(port: number, fn: () => Promise<T>): Promise<T> {
  const real = globalThis.fetch;
  globalThis.fetch = ((input: string | URL | Request, init?: RequestInit) => real(String(input).replace(/^https?:\/\/[a-z]+\.example/, `http://127.0.0.1:${port}`), init)) as typeof fetch;
  try {
    return await fn();
  } finally {
    globalThis.fetch = real;
  }
}

const Redirects = suite('registry :: redirects of an archive download');

Redirects('should refuse an https download redirected to plain http, naming the URLs, and request nothing over http', () =>
  withProject(async (t) => {
    const { server, port, asked } = await serve(t, { '/start.tgz': () => 'http://secure.example/pkg.tgz' });
    try {
      const error = await withNamesMapped(port, () => installExtension({ source: 'https://secure.example/start.tgz', paths: registryPaths({ cwd: t.project }) }).catch((e) => e));
      assert.equal([error.code, error.data?.reason], [LocalErrorCode.Registry, 'redirect-downgrade'], error.message);
      assert.equal(error.data?.chain, ['https://secure.example/start.tgz', 'http://secure.example/pkg.tgz']);
      assert.match(error.message, /https:\/\/secure\.example\/start\.tgz -> http:\/\/secure\.example\/pkg\.tgz/);
      assert.equal(asked, ['/start.tgz'], 'the http URL was never requested');
    } finally {
      server.close();
    }
  }),
);

Redirects('should refuse a redirect from a public host to this machine or its network, and follow redirects within a local host the user named', () =>
  withProject(async (t) => {
    const { server, port, asked } = await serve(t, {
      '/start.tgz': (p) => `http://127.0.0.1:${p}/pkg.tgz`,
      '/here.tgz': () => '/there.tgz',
      '/there.tgz': () => '/pkg.tgz',
      '/loop.tgz': () => '/loop.tgz',
    });
    const paths = registryPaths({ cwd: t.project });
    try {
      const error = await withNamesMapped(port, () => installExtension({ source: 'http://public.example/start.tgz', paths }).catch((e) => e));
      assert.equal([error.code, error.data?.reason], [LocalErrorCode.Registry, 'redirect-private'], error.message);
      assert.equal(asked, ['/start.tgz'], 'the local address was never requested');
      const loop = await installExtension({ source: `http://127.0.0.1:${port}/loop.tgz`, paths }).catch((e) => e);
      assert.equal([loop.code, loop.data?.reason, loop.data?.chain.length], [LocalErrorCode.Registry, 'redirect-limit', 12], loop.message);
      const installed = await installExtension({ source: `http://127.0.0.1:${port}/here.tgz`, paths });
      assert.is(installed.id, 'acme.arc');
    } finally {
      server.close();
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
