import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadWatFixture } from '../../../fixtures/wasm/compile.ts';
import { LocalErrorCode } from '../protocol/errors.ts';
import { openTransport, specFromPath } from './launch.ts';

const Launch = suite('registry :: openTransport (wasm)');

Launch('should compile exactly the bytes the lock pins, and refuse other bytes at load', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'mep-launch-'));
  try {
    const bytes = loadWatFixture('echo');
    const path = join(dir, 'echo.wasm');
    await writeFile(path, bytes);
    const pinned = createHash('sha256').update(bytes).digest('hex');
    const ok = await openTransport(specFromPath(path, { sha256: pinned }));
    await ok.close();
    const error = await openTransport(specFromPath(path, { sha256: '0'.repeat(64) })).catch((e) => e);
    assert.is(error.code, LocalErrorCode.Registry);
    assert.equal([error.data.reason, error.data.actual], ['hash-mismatch', pinned]);
    const missing = await openTransport(specFromPath(join(dir, 'absent.wasm'))).catch((e) => e);
    assert.is(missing.code, LocalErrorCode.Usage);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
Launch.run();
