/**
 * A `--socket` path longer than a Unix socket address holds (107 bytes on Linux, 103 on macOS):
 * the bind cut it, so the server listened on another path (its first 107 bytes, a file left
 * behind), then failed with a raw ENOENT from chmod of the path it was given, still listening.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalErrorCode, type MepError } from '../protocol/errors.ts';
import { createHostServer } from './host-server.ts';
import { createNodeOpener } from './node-open.ts';
import { listenUnixSocket } from './unix-socket.ts';

const Path = suite('mep serve --socket :: the socket path');

Path('should refuse a path too long for a socket address, naming its length, and create nothing :: sun_path', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'mep-sockpath-'));
  const server = createHostServer({ open: createNodeOpener() });
  try {
    const path = join(dir, `${'x'.repeat(200 - dir.length)}.sock`);
    const error = await listenUnixSocket(server, path).then(
      (listener) => (void listener.close(), undefined),
      (thrown: unknown) => thrown as MepError,
    );
    assert.ok(error, 'it listened');
    assert.is(error?.code, LocalErrorCode.Usage, String(error));
    assert.match(error?.message ?? '', new RegExp(`${Buffer.byteLength(path)} bytes.*at most 10[37] bytes`));
    assert.equal(await readdir(dir), [], 'no socket was created under a cut path');
  } finally {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
});

Path.run();
