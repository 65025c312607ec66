import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { addressSpaceTool, memoryLimitUnenforced, nodeMemoryFlags, processCommandOf, processMessageLimitOf, requestTimeoutOf, wasmLimitsOf, withLimits } from './launch-limits.ts';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadWatFixture } from '../../../fixtures/wasm/compile.ts';
import { createSession } from '../session/session.ts';
import { openTransport, specFromPath } from './launch.ts';
import type { LaunchSpec } from './launch.ts';

const spec = (over: Partial<LaunchSpec> = {}): LaunchSpec => ({ name: 'x', runtime: 'wasm', path: '/x.wasm', ...over });

const Limits = suite('launch limits');

Limits('should let the command line win over the manifest, field by field :: precedence', () => {
  const fromManifest = spec({ limits: { maxMemoryBytes: 1 << 30, callTimeoutMs: 60_000 } });
  const merged = withLimits(fromManifest, { callTimeoutMs: 5_000, maxMessageBytes: 1 << 20 });
  assert.equal(merged.limits, { maxMemoryBytes: 1 << 30, callTimeoutMs: 5_000, maxMessageBytes: 1 << 20 });
  assert.is(withLimits(fromManifest, {}), fromManifest);
  assert.is(withLimits(fromManifest, undefined), fromManifest);
});

Limits('should give the wasm sandbox both message directions, and let engine overrides win', () => {
  assert.equal(wasmLimitsOf(spec({ limits: { maxMessageBytes: 4096, maxMemoryBytes: 1 << 24, callTimeoutMs: 10 } })), {
    maxMemoryBytes: 1 << 24,
    callTimeoutMs: 10,
    maxRequestBytes: 4096,
    maxResponseBytes: 4096,
  });
  assert.equal(wasmLimitsOf(spec({ limits: { callTimeoutMs: 10 }, wasm: { limits: { callTimeoutMs: 20 } } })), { callTimeoutMs: 20 });
  assert.equal(wasmLimitsOf(spec()), {});
});

Limits('should set the session deadline past the sandbox deadline for wasm, equal to it for a process', () => {
  assert.is(requestTimeoutOf(spec()), 32_000);
  assert.is(requestTimeoutOf(spec({ limits: { callTimeoutMs: 500 } })), 2_500);
  assert.is(requestTimeoutOf(spec({ runtime: 'process', limits: { callTimeoutMs: 500 } })), 500);
  assert.is(requestTimeoutOf(spec({ runtime: 'process' })), 30_000);
});

Limits('should cap a Node script heap at the memory limit, 256 MiB by default', () => {
  const script = (over: Partial<LaunchSpec> = {}): LaunchSpec => spec({ runtime: 'process', path: '/ext.mjs', ...over });
  assert.equal(nodeMemoryFlags(script()), ['--max-old-space-size=256']);
  assert.equal(nodeMemoryFlags(script({ limits: { maxMemoryBytes: 512 * 1024 * 1024 } })), ['--max-old-space-size=512']);
  assert.equal(nodeMemoryFlags(script({ limits: { maxMemoryBytes: 65_536 } })), ['--max-old-space-size=16']);
  assert.equal(nodeMemoryFlags(script({ path: '/bin/ext', limits: { maxMemoryBytes: 1 << 30 } })), []);
  assert.equal(processCommandOf({ ...script(), args: ['-v'] }, '/usr/bin/prlimit'), { command: process.execPath, args: ['--max-old-space-size=256', '/ext.mjs', '-v'], heapLimitBytes: 256 * 1024 * 1024 });
  assert.is(processMessageLimitOf(spec({ runtime: 'process' })), 64 * 1024 * 1024);
  assert.is(processMessageLimitOf(spec({ runtime: 'process', limits: { maxMessageBytes: 2048 } })), 2048);
});

Limits('should cap a native executable\'s address space with prlimit when a limit is set, and say when nothing can', () => {
  const native = (over: Partial<LaunchSpec> = {}): LaunchSpec => spec({ runtime: 'process', path: '/bin/ext', args: ['a'], ...over });
  const capped = native({ limits: { maxMemoryBytes: 1 << 30 } });
  assert.equal(processCommandOf(capped, '/usr/bin/prlimit'), { command: '/usr/bin/prlimit', args: [`--as=${1 << 30}`, '--', '/bin/ext', 'a'], memoryLimitBytes: 1 << 30 });
  // No default for executables: what they reserve is not what they use.
  assert.equal(processCommandOf(native(), '/usr/bin/prlimit'), { command: '/bin/ext', args: ['a'] });
  assert.equal(processCommandOf(capped, null), { command: '/bin/ext', args: ['a'] });
  assert.ok(memoryLimitUnenforced(capped, null));
  assert.not.ok(memoryLimitUnenforced(capped, '/usr/bin/prlimit'));
  assert.not.ok(memoryLimitUnenforced(native(), null));
  assert.not.ok(memoryLimitUnenforced(spec({ runtime: 'process', path: '/ext.mjs', limits: { maxMemoryBytes: 1 << 30 } }), null));
  assert.not.ok(memoryLimitUnenforced(spec({ limits: { maxMemoryBytes: 1 << 30 } }), null));
  if (process.platform === 'linux') assert.ok(addressSpaceTool(), 'util-linux prlimit is on this Linux machine');
});

Limits.run();

const Long = suite('launch limits :: the longest deadline');

Long('should keep a wasm call with the longest --call-timeout running instead of failing it at once :: numbers', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'mep-long-deadline-'));
  const path = join(dir, 'loop.wasm');
  await writeFile(path, loadWatFixture('loop'));
  // The session waits 2 s past the sandbox's deadline: 2,147,483,000 + 2,000 ms overflowed
  // Node's timer, which then fired after 1 ms.
  const longest = withLimits(specFromPath(path), { callTimeoutMs: 2_147_483_000 });
  const session = createSession({ transport: await openTransport(longest), requestTimeoutMs: requestTimeoutOf(longest) });
  try {
    const describe = session.describe().then(
      () => 'answered',
      (error: { code?: unknown }) => String(error.code),
    );
    const early = await Promise.race([describe, new Promise((resolve) => setTimeout(() => resolve('still running'), 1_500))]);
    assert.is(early, 'still running');
  } finally {
    await session.close();
    await rm(dir, { recursive: true, force: true });
  }
});

Long.run();
