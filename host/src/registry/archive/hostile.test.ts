import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { captureIo } from '../../cli/io.ts';
import { main } from '../../cli/main.ts';
import { LocalErrorCode } from '../../protocol/errors.ts';
import { installExtension } from '../install.ts';
import type { InstallOptions } from '../install.ts';
import { registryPaths } from '../paths.ts';
import { backend, gzipBomb, makeTarGz, makeZip, packageEntries, tarHeader, withProject, writePackage, zerosDeflated } from '../test-support.ts';
import type { TempProject, TestEntry } from '../test-support.ts';
import { DEFAULT_ARCHIVE_LIMITS } from './budget.ts';

const MiB = 1 << 20;

async function fixtureEntries(t: TempProject, prefix = ''): Promise<TestEntry[]> {
  return packageEntries(await writePackage(join(t.root, 'pkg'), { id: 'acme.arc', capabilities: backend('arc') }), prefix);
}

/** Installs `bytes` saved as `name`, returning the error (or the result when it installed). */
async function install(t: TempProject, name: string, bytes: Uint8Array, options: Partial<InstallOptions> = {}): Promise<{ code?: string; data?: Record<string, unknown> }> {
  await writeFile(join(t.root, name), bytes);
  return installExtension({ source: join(t.root, name), paths: registryPaths({ cwd: t.project }), ...options }).catch((e) => e);
}

async function assertNothingInstalled(t: TempProject): Promise<void> {
  assert.not.ok(await stat(join(t.project, '.mep')).catch(() => undefined), 'nothing installed');
}

/** Runs `fn` while sampling this process's RSS; returns the peak growth in bytes. */
async function peakRssGrowth(fn: () => Promise<unknown>): Promise<number> {
  const base = process.memoryUsage.rss();
  let peak = base;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 20);
  try {
    await fn();
  } finally {
    clearInterval(timer);
  }
  return Math.max(peak, process.memoryUsage.rss()) - base;
}

const Hostile = suite('registry :: hostile archives at install');

Hostile('should refuse two members that land on the same path after normalisation (tar and zip)', () =>
  withProject(async (t) => {
    const base = await fixtureEntries(t);
    const manifest = base.find((e) => e.path === 'extension.json') as TestEntry;
    const second = { path: 'extension.json', data: new TextEncoder().encode(new TextDecoder().decode(manifest.data as Uint8Array).replace('1.0.0', '6.6.6')) };
    const cases: [string, TestEntry[], string][] = [
      ['a second extension.json', [...base, second], 'duplicate-entry'],
      ['./extension.json beside extension.json', [...base, { ...second, path: './extension.json' }], 'duplicate-entry'],
      ['bin//ext.mjs beside bin/ext.mjs', [...base, { path: 'bin//ext.mjs', data: 'x' }], 'duplicate-entry'],
      ['names that differ only in case', [...base, { ...second, path: 'Extension.json' }], 'duplicate-entry'],
      ['NFC and NFD spellings of one name', [...base, { path: 'caf\u00e9.txt', data: 'a' }, { path: 'cafe\u0301.txt', data: 'b' }], 'duplicate-entry'],
      ['a file and a directory of one name', [...base, { path: 'bin/ext.mjs/' }], 'duplicate-entry'],
      ['a symlink replacing a file', [...base, { path: 'bin/ext.mjs', link: 'other' }], 'duplicate-entry'],
      ['a member under a file', [...base, { path: 'bin/ext.mjs/inner', data: 'x' }], 'unsafe-entry'],
    ];
    for (const [name, entries, reason] of cases) {
      for (const [format, bytes] of [['tgz', makeTarGz(entries)], ['zip', makeZip(entries)]] as const) {
        const error = await install(t, `dup.${format}`, bytes);
        assert.is(error.code, LocalErrorCode.Registry, `${format}: ${name}`);
        assert.is(error.data?.reason, reason, `${format}: ${name}`);
      }
    }
    await assertNothingInstalled(t);
    assert.is((await install(t, 'ok.tgz', makeTarGz(base))).code, undefined);
  }),
);

Hostile('should stop a 10 GiB gzip bomb at the byte budget, early and with bounded memory', () =>
  withProject(async (t) => {
    // 10 MB on disk; a tar member declaring 10 GiB, then 10 GiB of zeros.
    const bomb = gzipBomb(10 * 1024, tarHeader('pkg/big.bin', 10 * 2 ** 30));
    let error: Awaited<ReturnType<typeof install>> = {};
    const growth = await peakRssGrowth(async () => (error = await install(t, 'bomb.tgz', bomb)));
    assert.is(error.code, LocalErrorCode.Limit);
    assert.equal([error.data?.reason, error.data?.budget, error.data?.limit, error.data?.option], ['archive-budget', 'bytes', DEFAULT_ARCHIVE_LIMITS.maxBytes, '--max-unpacked']);
    assert.ok(growth < 256 * MiB, `RSS grew by ${(growth / MiB).toFixed(0)} MiB`);

    // Zeros without any tar header read as an empty archive at once.
    const zeros = await peakRssGrowth(async () => (error = await install(t, 'zeros.tgz', gzipBomb(10 * 1024))));
    assert.is(error.data?.reason, 'no-manifest');
    assert.ok(zeros < 256 * MiB, `RSS grew by ${(zeros / MiB).toFixed(0)} MiB`);
    await assertNothingInstalled(t);
  }),
);

Hostile('should obey a lowered or raised byte budget, from the library and from mep install', () =>
  withProject(async (t) => {
    const entries = [...(await fixtureEntries(t)), { path: 'data.bin', data: new Uint8Array(2 * MiB) }];
    const tgz = makeTarGz(entries);
    const small = await install(t, 'p.tgz', tgz, { archiveLimits: { maxBytes: MiB } });
    assert.equal([small.code, small.data?.budget, small.data?.limit], [LocalErrorCode.Limit, 'bytes', MiB]);
    const io = captureIo(t.project);
    assert.is(await main(['install', join(t.root, 'p.tgz'), '--max-unpacked', '1MiB', '--json'], io), 3);
    assert.equal(JSON.parse(io.stdout.join('\n')).error.data.option, '--max-unpacked');
    await assertNothingInstalled(t);
    assert.is(await main(['install', join(t.root, 'p.tgz'), '--max-unpacked', '8MiB'], captureIo(t.project)), 0);
  }),
);

Hostile('should stop an archive with too many members at the entry budget (tar at the default, zip at a given one)', () =>
  withProject(async (t) => {
    const base = await fixtureEntries(t);
    const many = [...base, ...Array.from({ length: DEFAULT_ARCHIVE_LIMITS.maxEntries }, (_, i) => ({ path: `many/f${i}`, data: '' }))];
    const error = await install(t, 'many.tgz', makeTarGz(many));
    assert.equal([error.code, error.data?.budget, error.data?.limit, error.data?.option], [LocalErrorCode.Limit, 'entries', DEFAULT_ARCHIVE_LIMITS.maxEntries, '--max-entries']);
    // The option moves the budget both ways (a small archive keeps the successful install quick).
    await writeFile(join(t.root, 'some.zip'), makeZip([...base, ...many.slice(base.length, base.length + 60)]));
    const low = captureIo(t.project);
    assert.is(await main(['install', join(t.root, 'some.zip'), '--max-entries', '50', '--json'], low), 3);
    assert.equal([JSON.parse(low.stdout.join('\n')).error.data.budget, JSON.parse(low.stdout.join('\n')).error.data.limit], ['entries', 50]);
    await assertNothingInstalled(t);
    const io = captureIo(t.project);
    assert.is(await main(['install', join(t.root, 'some.zip'), '--max-entries', '100'], io), 0, io.stderr.join('\n'));
  }),
);

Hostile('should refuse zip members that inflate past their declared size, declare past the budget, or share data', () =>
  withProject(async (t) => {
    const base = await fixtureEntries(t);
    const lying = [...base, { path: 'big.bin', deflated: { data: zerosDeflated(1024), size: 100, crc: 0 } }];
    let error: Awaited<ReturnType<typeof install>> = {};
    const growth = await peakRssGrowth(async () => (error = await install(t, 'lying.zip', makeZip(lying))));
    assert.equal([error.code, error.data?.reason], [LocalErrorCode.Registry, 'archive']);
    assert.ok(growth < 256 * MiB, `RSS grew by ${(growth / MiB).toFixed(0)} MiB`);

    const honest = [...base, { path: 'big.bin', deflated: { data: zerosDeflated(3 * 1024), size: 3 * 2 ** 30, crc: 0 } }];
    error = await install(t, 'big.zip', makeZip(honest));
    assert.equal([error.code, error.data?.budget], [LocalErrorCode.Limit, 'bytes']);

    const shared = [...base, { path: 'a.bin', data: 'shared' }, { path: 'b.bin', sharesWith: base.length }];
    error = await install(t, 'shared.zip', makeZip(shared));
    assert.equal([error.code, error.data?.reason], [LocalErrorCode.Registry, 'archive']);
    await assertNothingInstalled(t);
  }),
);

Hostile('should cap a download that never ends, and one announced too big, at the byte budget', () =>
  withProject(async (t) => {
    const chunk = new Uint8Array(64 * 1024);
    const server = createServer((request, response) => {
      if (request.url === '/announced.tgz') {
        response.writeHead(200, { 'content-length': String(2 ** 40) });
        response.end();
        return;
      }
      response.writeHead(200);
      const pump = (): void => {
        while (response.write(chunk));
        response.once('drain', pump);
      };
      response.on('close', () => response.removeAllListeners('drain'));
      pump();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const paths = registryPaths({ cwd: t.project });
      for (const name of ['endless.tgz', 'announced.tgz']) {
        const error = await installExtension({ source: `http://127.0.0.1:${port}/${name}`, paths, archiveLimits: { maxBytes: 4 * MiB } }).catch((e) => e);
        assert.equal([error.code, error.data?.budget, error.data?.limit], [LocalErrorCode.Limit, 'bytes', 4 * MiB], name);
      }
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
    await assertNothingInstalled(t);
    assert.equal((await readdir(t.root)).sort(), ['home', 'project']);
  }),
);

Hostile('should stop a download that stalls or trickles at the fetch deadline (maxFetchMs, --fetch-timeout)', () =>
  withProject(async (t) => {
    const server = createServer((request, response) => {
      if (request.url === '/silent.tgz') return; // accepts the request, never answers
      response.writeHead(200);
      // One byte every 50 ms: never idle, and 512 MiB at this pace is 850 years.
      const timer = setInterval(() => response.write(new Uint8Array(1)), 50);
      response.on('close', () => clearInterval(timer));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const paths = registryPaths({ cwd: t.project });
      for (const name of ['silent.tgz', 'trickle.tgz']) {
        const error = await installExtension({ source: `http://127.0.0.1:${port}/${name}`, paths, archiveLimits: { maxFetchMs: 600 } }).catch((e) => e);
        assert.instance(error, Error, `${name}: still waiting`);
        assert.equal([error.code, error.data?.limit, error.data?.option], [LocalErrorCode.Timeout, 'maxFetchMs', '--fetch-timeout'], `${name}: ${error.message}`);
        assert.match(error.message, /600 ms/);
      }
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
    await assertNothingInstalled(t);
  }),
);

Hostile.run();
