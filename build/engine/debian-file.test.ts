/**
 * Fetching the pinned Debian file: the cache, a local copy, each mirror and snapshot.debian.org
 * in turn, bytes checked against the pin whatever their source, and one typed error naming every
 * place tried. The network is played by a stub; the real package's unpacking is checked on the
 * cached .deb the engine build fetched.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { debianUrls, ensureDebianFile, LOCAL_DEB_ENV, MIRROR_ENV, type DebianPin } from './debian-file.ts';
import { ENGINE_CACHE_DIR, ensureEngine } from './index.ts';
import { arMembers, extractDeb } from './internal/deb-archive.ts';
import { QUICKJS_DEB, QUICKJS_SOURCES } from './quickjs-source.ts';

const bytes = randomBytes(1000);
const pin: DebianPin = {
  package: 'qjs-src',
  version: '9.9-1',
  suites: ['testing'],
  filename: 'pool/main/q/quickjs-ng/qjs-src_9.9-1_all.deb',
  size: bytes.length,
  sha256: createHash('sha256').update(bytes).digest('hex'),
  sha1: createHash('sha1').update(bytes).digest('hex'),
};

/** A network where only `serving` answers, with `body`; every URL asked is recorded. */
function network(serving: (url: string) => boolean, body: Uint8Array = bytes): { asked: string[]; download: (url: string) => Promise<Uint8Array> } {
  const asked: string[] = [];
  return {
    asked,
    download: async (url) => {
      asked.push(url);
      if (!serving(url)) throw new Error('HTTP 404');
      return body;
    },
  };
}

const fetchSuite = suite('engine :: the Debian source package');

const withDir = async (f: (dir: string) => Promise<void>): Promise<void> => {
  const dir = mkdtempSync(join(tmpdir(), 'mep-deb-'));
  try {
    await f(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

fetchSuite('should try the pool of each mirror, then snapshot.debian.org by sha1', () => {
  assert.equal(debianUrls(pin, {}), [`https://deb.debian.org/debian/${pin.filename}`, `https://snapshot.debian.org/file/${pin.sha1}`]);
  assert.equal(debianUrls(pin, { [MIRROR_ENV]: 'http://mirror.example/debian/' })[0], `http://mirror.example/debian/${pin.filename}`);
});

fetchSuite('should fall back to snapshot.debian.org when the pool file is gone, and cache what it got', async () => {
  await withDir(async (dir) => {
    const net = network((url) => url.includes('snapshot.debian.org'));
    const path = await ensureDebianFile(pin, dir, { env: {}, download: net.download });
    assert.equal(net.asked, debianUrls(pin, {}));
    assert.ok(Buffer.compare(readFileSync(path), bytes) === 0);
    const again = network(() => false);
    assert.is(await ensureDebianFile(pin, dir, { env: {}, download: again.download }), path);
    assert.equal(again.asked, [], 'a cached copy is not fetched again');
  });
});

fetchSuite('should refuse bytes that are not the pinned file from any source, and keep looking', async () => {
  await withDir(async (dir) => {
    const forged = Buffer.from(bytes);
    forged[0]! ^= 1;
    const local = join(dir, 'local.deb');
    writeFileSync(local, forged);
    let served = 0;
    const path = await ensureDebianFile(pin, join(dir, 'cache'), {
      env: { [LOCAL_DEB_ENV]: local },
      download: async () => (served++ === 0 ? forged : bytes),
    });
    assert.is(served, 2);
    assert.ok(Buffer.compare(readFileSync(path), bytes) === 0);
  });
});

fetchSuite('should take a local copy named by MEP_QUICKJS_DEB without the network', async () => {
  await withDir(async (dir) => {
    const local = join(dir, 'copy.deb');
    writeFileSync(local, bytes);
    const net = network(() => false);
    await ensureDebianFile(pin, join(dir, 'cache'), { env: { [LOCAL_DEB_ENV]: local }, download: net.download });
    assert.equal(net.asked, []);
  });
});

fetchSuite('should fail with ERR_BUILD naming every place tried, and leave nothing behind', async () => {
  await withDir(async (dir) => {
    const net = network(() => false);
    const error = await ensureDebianFile(pin, dir, { env: { [LOCAL_DEB_ENV]: join(dir, 'none.deb') }, download: net.download }).then(() => null, (e: unknown) => e);
    const e = error as { code?: string; data?: { tried?: string[]; sha256?: string } };
    assert.is(e.code, 'ERR_BUILD');
    assert.is(e.data?.sha256, pin.sha256);
    assert.is(e.data?.tried?.length, 3);
    assert.match(String(e.data?.tried?.[0]), /none\.deb: no such file/);
    assert.match(String(e.data?.tried?.[2]), /snapshot\.debian\.org.*HTTP 404/);
    assert.equal(readdirSync(dir), []);
  });
});

fetchSuite('should unpack the real qjs-src package, by dpkg-deb and by reading its ar archive, to the same sources', async () => {
  await ensureEngine();
  const deb = join(ENGINE_CACHE_DIR, QUICKJS_DEB.filename.split('/').pop() as string);
  assert.ok(existsSync(deb));
  const members = arMembers(readFileSync(deb)).map((m) => m.name);
  assert.equal(members.slice(0, 2), ['debian-binary', 'control.tar.xz']);
  assert.ok(members.some((m) => m.startsWith('data.tar')));
  await withDir(async (dir) => {
    mkdirSync(join(dir, 'a'));
    mkdirSync(join(dir, 'b'));
    extractDeb(deb, join(dir, 'a'));
    extractDeb(deb, join(dir, 'b'), { dpkg: false });
    for (const f of QUICKJS_SOURCES) {
      const [a, b] = ['a', 'b'].map((d) => readFileSync(join(dir, d, 'usr', 'src', 'quickjs-ng', f)));
      assert.ok(Buffer.compare(a!, b!) === 0, f);
    }
    assert.equal(readdirSync(join(dir, 'b')).sort(), readdirSync(join(dir, 'a')).sort());
  });
  assert.throws(() => arMembers(Buffer.from('not an archive')), /not an ar archive/);
});

fetchSuite.run();
