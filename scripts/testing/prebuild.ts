/**
 * Builds, before the test workers start (scripts/test.mjs), the example extensions that suites in
 * different workers share, two at a time. Builds are cached by content (.cache/guest), so each
 * worker then finds them built instead of building the same guest at the same time as the other.
 * A failure here is not a test failure: it is printed, and the suites that need the guest build it
 * again and report what failed there.
 */
import { builtExample } from '../../examples/testing/built.ts';

const SHARED: readonly (readonly [string, 'wasm' | 'process'])[] = [
  ['avro', 'wasm'],
  ['elm-frontend', 'wasm'],
  ['avro', 'process'],
  ['elm-frontend', 'process'],
  ['naming-validator', 'wasm'],
  ['prune-private', 'wasm'],
];

const started = performance.now();
let failed = 0;
let next = 0;
async function worker(): Promise<void> {
  while (next < SHARED.length) {
    const [example, runtime] = SHARED[next++]!;
    const at = performance.now();
    try {
      await builtExample(example, runtime);
      console.log(`built ${example} (${runtime}) in ${((performance.now() - at) / 1000).toFixed(1)} s`);
    } catch (error) {
      failed++;
      console.log(`could not build ${example} (${runtime}): ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}
await Promise.all([worker(), worker()]);
console.log(`${SHARED.length - failed} shared example builds ready in ${((performance.now() - started) / 1000).toFixed(1)} s`);
process.exit(failed === 0 ? 0 : 1);
