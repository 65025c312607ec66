import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { retainedAcrossModules } from '../../../scripts/hostile/serve-modules.ts';

const MB = 1024 * 1024;

const Retained = suite('mep serve :: what a closed session leaves');

Retained('should keep RSS flat over sessions of 12 different modules opened one after another', async () => {
  const { growth, before, after } = await retainedAcrossModules(12);
  // Measured: the compiled modules kept by two caches grew the server ~5 MB a module (a guest
  // that runs more code compiles more: ~500 MB over 8 sessions); now 10-30 MB in all (allocator noise).
  assert.ok(growth < 64 * MB, `RSS ${(before / MB).toFixed(0)} MB after 2 sessions, ${(after / MB).toFixed(0)} MB after 12`);
});

Retained.run();
