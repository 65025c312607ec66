/**
 * Test kit for the probe guests (examples/compat, examples/modern-js): each answers `generate`
 * for target `compat` with one artifact holding its probes' results as JSON. These build the
 * wasm guest (or, on an engine that cannot load it, the entry without what it refuses) and read
 * a guest's results through a real session.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { buildGuest } from '../../build/guest/index.ts';
import { openTransport, specFromPath } from '../../host/src/registry/launch.ts';
import { withGrants, type ClockRandomGrants } from '../../host/src/registry/launch-grants.ts';
import { createSession } from '../../host/src/session/session.ts';
import { REPO_ROOT, builtExample } from './built.ts';

/** `examples/<example>/extension.ts` built for wasm, or `fallback` (an entry in that folder) when given. */
export function builtProbeGuest(example: string, fallback?: string): Promise<string> {
  if (fallback === undefined) return builtExample(example, 'wasm');
  const outDir = join(REPO_ROOT, '.cache', 'examples');
  mkdirSync(outDir, { recursive: true });
  const entry = join(REPO_ROOT, 'examples', example, fallback);
  return buildGuest({ entry, outFile: join(outDir, `${example}-${fallback.replace(/\.ts$/, '')}.wasm`) }).then((r) => r.outFile);
}

/** The results a probe guest at `path` answers, in a session with `grants` (a wasm guest's). */
export async function probeResults<T>(path: string, grants?: ClockRandomGrants): Promise<T> {
  const session = createSession({ transport: await openTransport(withGrants(specFromPath(path), grants)) });
  try {
    await session.start();
    const r = await session.generate({ ir: { formatVersion: 3, distribution: [] }, target: 'compat', options: {} });
    assert.ok(r.success);
    return JSON.parse(r.artifacts[0]!.content) as T;
  } finally {
    await session.close();
  }
}
