import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isMepError, LocalErrorCode } from '../../host/src/protocol/errors.ts';
import { readShippedEngine, SHIPPED_ENGINE_MANIFEST } from './shipped.ts';

const Shipped = suite('engine :: readShippedEngine');

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'mep-shipped-'));
  try {
    await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function buildError(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    assert.ok(isMepError(error), String(error));
    assert.is(error.code, LocalErrorCode.Build);
    return error.message;
  }
  throw new Error('expected ERR_BUILD');
}

Shipped('should return the engine the manifest lists, with its hash, as not built', () =>
  withDir(async (dir) => {
    await writeFile(join(dir, 'engine-abc.wasm'), 'wasm');
    await writeFile(join(dir, 'engine-abc.guest.wasm'), 'wasm');
    await writeFile(join(dir, SHIPPED_ENGINE_MANIFEST), JSON.stringify({ hash: 'abc', wasm: 'engine-abc.wasm', optimized: 'engine-abc.guest.wasm' }));
    assert.equal(readShippedEngine(dir), { wasmPath: join(dir, 'engine-abc.wasm'), hash: 'abc', built: false });
  }),
);

Shipped('should name the folder when there is no manifest', () =>
  withDir(async (dir) => {
    assert.match(buildError(() => readShippedEngine(dir)), dir);
  }),
);

Shipped('should refuse a damaged manifest, or one whose files are missing or escape by a non-string', () =>
  withDir(async (dir) => {
    const manifest = join(dir, SHIPPED_ENGINE_MANIFEST);
    await writeFile(manifest, '{"hash":');
    buildError(() => readShippedEngine(dir));
    await writeFile(join(dir, 'engine-abc.wasm'), 'wasm');
    await writeFile(manifest, JSON.stringify({ hash: 'abc', wasm: 'engine-abc.wasm', optimized: 'engine-abc.guest.wasm' }));
    assert.match(buildError(() => readShippedEngine(dir)), 'engine-abc.guest.wasm');
    await writeFile(manifest, JSON.stringify({ hash: 'abc', wasm: 42, optimized: 'engine-abc.wasm' }));
    buildError(() => readShippedEngine(dir));
    await writeFile(manifest, 'null');
    buildError(() => readShippedEngine(dir));
    await writeFile(manifest, JSON.stringify({ hash: 'abc', wasm: '../engine-abc.wasm', optimized: 'engine-abc.wasm' }));
    buildError(() => readShippedEngine(dir));
  }),
);

Shipped.run();
