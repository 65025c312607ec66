import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parseInstallSource } from './install-source.ts';
import { isMepError, LocalErrorCode } from '../protocol/errors.ts';

const Parse = suite('registry :: parseInstallSource');
const hex = 'ab'.repeat(32);

Parse('should read a relative directory against cwd', () => {
  assert.equal(parseInstallSource('./pkg', '/work/p'), { kind: 'directory', spec: './pkg', path: '/work/p/pkg' });
});

Parse('should split git url, //subdir and #ref', () => {
  assert.equal(parseInstallSource('git@github.com:acme/monorepo.git//ext/crm#main', '/'), {
    kind: 'git',
    spec: 'git@github.com:acme/monorepo.git//ext/crm#main',
    url: 'git@github.com:acme/monorepo.git',
    ref: 'main',
    subdir: 'ext/crm',
  });
  const file = parseInstallSource('file:///srv/repo.git//ext#v1', '/');
  assert.is(file.kind === 'git' && file.url, 'file:///srv/repo.git');
  assert.is(file.kind === 'git' && file.subdir, 'ext');
  const plain = parseInstallSource('https://github.com/acme/crm.git#v1.2.0', '/');
  assert.equal(plain.kind === 'git' && [plain.url, plain.ref, plain.subdir], ['https://github.com/acme/crm.git', 'v1.2.0', undefined]);
});

Parse('should read archives with an optional #sha256', () => {
  const local = parseInstallSource(`dist/crm.tar.gz#sha256=${hex.toUpperCase()}`, '/p');
  assert.equal(local, { kind: 'archive', spec: `dist/crm.tar.gz#sha256=${hex.toUpperCase()}`, format: 'tar.gz', location: { path: '/p/dist/crm.tar.gz' }, sha256: hex });
  const remote = parseInstallSource('https://example.com/x/crm.zip', '/');
  assert.equal(remote.kind === 'archive' && [remote.format, remote.location], ['zip', { url: 'https://example.com/x/crm.zip' }]);
  const file = parseInstallSource('file:///tmp/a.tgz', '/');
  assert.equal(file.kind === 'archive' && file.location, { path: '/tmp/a.tgz' });
});

Parse('should refuse a bad fragment or a climbing subdir as usage errors', () => {
  for (const spec of ['a.tgz#md5=1', 'a.zip#sha256=abc', 'file:///r.git//../x#main', './dir#x']) {
    try {
      parseInstallSource(spec, '/');
      assert.unreachable(spec);
    } catch (error) {
      assert.ok(isMepError(error) && error.code === LocalErrorCode.Usage, spec);
    }
  }
});

Parse.run();
