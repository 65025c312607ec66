/**
 * Red team (issue 31, round 14): a password in an install source's URL
 * (`https://alice:TOKEN@git.example/acme/ext.git`, or an archive's). `mep install` handed it on:
 * to git's command line (which any user of the machine reads in /proc/<pid>/cmdline), into every
 * message (`git clone failed for https://alice:TOKEN@…`, where git itself had shown the URL
 * without it), and, once installed, into the lock's `source`, a file a project shares in its
 * repository, and `mep list`. Such a source is refused before anything is fetched, the password
 * shown as `***`; credentials go to git's credential helpers, `.netrc` or a secret reference.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { LocalErrorCode } from '../protocol/errors.ts';
import { installExtension } from './install.ts';
import { registryPaths } from './paths.ts';
import { withProject } from './test-support.ts';

const Credentials = suite('registry :: a password in an install source URL');

/** A local server answering 404, counting the requests that reach it. */
async function countingServer(): Promise<{ port: number; requests: () => number; server: Server }> {
  let requests = 0;
  const server = createServer((_request, response) => {
    requests++;
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, requests: () => requests, server };
}

Credentials('should refuse a git or archive source whose URL carries a password before fetching, never showing it :: credentials', () =>
  withProject(async (t) => {
    const { port, requests, server } = await countingServer();
    const secret = 's3cr3tTOKEN';
    try {
      for (const source of [
        `https://alice:${secret}@127.0.0.1:${port}/acme/ext.git#v1`,
        `http://alice:${secret}@127.0.0.1:${port}/acme/ext.git`,
        `git+https://x-access-token:${secret}@127.0.0.1:${port}/acme/ext`,
        `ssh://git:${secret}@127.0.0.1:${port}/acme/ext.git`,
        `http://alice:${secret}@127.0.0.1:${port}/acme/ext.tgz`,
      ]) {
        const error = await installExtension({ source, paths: registryPaths({ cwd: t.project }) }).catch((e) => e);
        assert.is(error.code, LocalErrorCode.Usage, `${source}: ${error.message ?? 'installed'}`);
        assert.is(error.data?.reason, 'credentials-in-url', source);
        assert.not.match(JSON.stringify({ message: error.message, data: error.data }), secret, `${source}: the password is shown`);
        assert.match(error.message, ':***@');
        assert.match(error.message, /credential helper/);
      }
      assert.is(requests(), 0, 'git or the download reached the server');
      assert.not.ok(await stat(join(t.project, '.mep/extensions.lock')).catch(() => undefined), 'nothing locked');
      // A user name alone is not a password: `git@host` and `ssh://git@host/…` parse as before.
      const named = await installExtension({ source: `http://alice@127.0.0.1:${port}/acme/ext.git`, paths: registryPaths({ cwd: t.project }) }).catch((e) => e);
      assert.is(named.code, LocalErrorCode.Registry, named.message);
      assert.is(named.data?.reason, 'git');
    } finally {
      server.close();
    }
  }),
);

Credentials('should refuse a URL source with a query string (the signature of a presigned URL) before fetching, never showing or locking it :: credentials', () =>
  withProject(async (t) => {
    const { port, requests, server } = await countingServer();
    const secret = 'SIGNATUREs3cr3t';
    try {
      for (const source of [
        `https://127.0.0.1:${port}/bucket/ext.tgz?X-Amz-Signature=${secret}&X-Amz-Expires=300`,
        `http://127.0.0.1:${port}/dl/ext.tar.gz?token=${secret}#sha256=${'a'.repeat(64)}`,
        `https://127.0.0.1:${port}/acme/ext.git?private_token=${secret}`,
      ]) {
        const error = await installExtension({ source, paths: registryPaths({ cwd: t.project }) }).catch((e) => e);
        assert.is(error.code, LocalErrorCode.Usage, `${source}: ${error.message ?? 'installed'}`);
        assert.is(error.data?.reason, 'credentials-in-url', source);
        assert.not.match(JSON.stringify({ message: error.message, data: error.data }), secret, `${source}: the query is shown`);
        assert.match(error.message, '?***');
      }
      assert.is(requests(), 0, 'git or the download reached the server');
      assert.not.ok(await stat(join(t.project, '.mep/extensions.lock')).catch(() => undefined), 'nothing locked');
    } finally {
      server.close();
    }
  }),
);

Credentials.run();
