import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { loadWatFixture } from '../../../../fixtures/wasm/compile.ts';
import { compileExtensionModule } from './module.ts';
import { createModuleCache } from './module-cache.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Collects garbage until `done` holds (finalizers run between turns), at most 50 rounds. */
async function collectUntil(done: () => boolean): Promise<boolean> {
  for (let i = 0; i < 50 && !done(); i++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return done();
}

const Cache = suite('module cache');

Cache('should return the same module while it is used, and compile once', async () => {
  const cache = createModuleCache(4);
  let compiles = 0;
  const compile = async (): Promise<WebAssembly.Module> => (compiles++, WebAssembly.compile(loadWatFixture('echo') as Uint8Array<ArrayBuffer>));
  const [a, b] = await Promise.all([cache.get('k', compile), cache.get('k', compile)]);
  assert.is(a, b);
  assert.is(await cache.get('k', compile), a);
  assert.is(compiles, 1);
});

Cache('should not cache a failed compile', async () => {
  const cache = createModuleCache(4);
  await cache.get('bad', () => Promise.reject(new Error('no'))).catch(() => undefined);
  assert.is(await cache.get('bad', () => WebAssembly.compile(loadWatFixture('echo') as Uint8Array<ArrayBuffer>)) instanceof WebAssembly.Module, true);
});

Cache('should keep nothing of a module no one uses any more', async () => {
  const cache = createModuleCache(4);
  let collected = false;
  const registry = new FinalizationRegistry(() => (collected = true));
  await (async () => registry.register(await cache.get('k', () => WebAssembly.compile(loadWatFixture('echo') as Uint8Array<ArrayBuffer>)), 0))();
  assert.ok(await collectUntil(() => collected && cache.size() === 0), 'the module is still held by the cache');
});

Cache('should free the modules compileExtensionModule compiled once their users are gone (mep serve)', async () => {
  let collected = 0;
  const registry = new FinalizationRegistry(() => collected++);
  for (let i = 0; i < 4; i++) {
    // Four different modules (a custom section apart), each used once and dropped.
    const bytes = Uint8Array.from([...loadWatFixture('echo'), 0, 2, 1, 0x61 + i]);
    registry.register(await compileExtensionModule(bytes, { name: `echo-${i}` }), i);
  }
  assert.ok(await collectUntil(() => collected === 4), `${collected} of 4 modules freed`);
});

Cache.run();
