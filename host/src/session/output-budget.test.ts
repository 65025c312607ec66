import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { binaryArtifact, defineExtension, textArtifact } from '../../../guest-pdk/src/index.ts';
import { createInProcessTransport } from '../testing/in-process-transport.ts';
import { artifactBytes } from '../protocol/artifact.ts';
import { LocalErrorCode, isMepError } from '../protocol/errors.ts';
import type { Artifact } from '../protocol/index.ts';
import { createSession } from './session.ts';
import type { OutputLimits } from './output-budget.ts';

const IR = { formatVersion: 3, distribution: ['Library', [], {}, { modules: [] }] };

/** A PDK backend that streams `streamed` artifacts and returns `returned` more, each made by `make`. */
const backend = (streamed: number, returned: number, make: (path: string) => Artifact) =>
  defineExtension({
    info: { id: 'test.output', name: 'Output backend', version: '1.0.0' },
    backend: {
      targets: ['t'],
      irVersions: ['3'],
      generate(_params, ctx) {
        for (let i = 0; i < streamed; i++) ctx.emit(make(`streamed/${i}.txt`));
        return { artifacts: Array.from({ length: returned }, (_, i) => make(`returned/${i}.txt`)) };
      },
    },
  });

async function run(extension: ReturnType<typeof backend>, outputLimits: OutputLimits, sink?: Artifact[]) {
  const session = createSession({ transport: createInProcessTransport(extension), outputLimits });
  await session.start();
  try {
    return await session.generate({ ir: IR, target: 't' }, sink ? { onArtifact: (a) => void sink.push(a) } : {});
  } finally {
    await session.close();
  }
}

async function limitOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    assert.ok(isMepError(error), String(error));
    assert.is(error.code, LocalErrorCode.Limit, error.message);
    return (error.data as { limit?: unknown }).limit;
  }
  return assert.unreachable('expected ERR_LIMIT');
}

const kib = (path: string) => textArtifact(path, 'x'.repeat(1024));
const Budget = suite('session :: the output bound of a generate call (maxOutputBytes, maxOutputFiles)');

Budget('should hand the sink nothing past maxOutputBytes, and fail with ERR_LIMIT naming it :: hostile', async () => {
  const taken: Artifact[] = [];
  assert.is(await limitOf(run(backend(100, 0, kib), { maxOutputBytes: 10 * 1024 }, taken)), 'maxOutputBytes');
  assert.is(taken.length, 10, 'the ten that fit were handed on, the eleventh never');
});

Budget('should hand the sink nothing past maxOutputFiles :: hostile', async () => {
  const taken: Artifact[] = [];
  assert.is(await limitOf(run(backend(50, 0, kib), { maxOutputFiles: 7 }, taken)), 'maxOutputFiles');
  assert.is(taken.length, 7);
});

Budget('should count returned artifacts with the streamed ones, and bound a caller that collects them :: hostile', async () => {
  assert.is(await limitOf(run(backend(5, 5, kib), { maxOutputFiles: 9 }, [])), 'maxOutputFiles');
  assert.is(await limitOf(run(backend(5, 5, kib), { maxOutputBytes: 9 * 1024 }, [])), 'maxOutputBytes');
  assert.is(await limitOf(run(backend(0, 10, kib), { maxOutputBytes: 9 * 1024 })), 'maxOutputBytes');
  assert.is(await limitOf(run(backend(20, 0, kib), { maxOutputFiles: 19 })), 'maxOutputFiles');
});

Budget('should succeed at exactly the bounds, counting bytes as written (binary decoded, text as UTF-8)', async () => {
  const result = await run(backend(5, 5, kib), { maxOutputBytes: 10 * 1024, maxOutputFiles: 10 }, []);
  assert.is(result.artifacts.length, 5);
  // 1,024 bytes are 1,368 base64 characters: counted as the 1,024 written.
  const bin = (path: string) => binaryArtifact(path, new Uint8Array(1024));
  assert.is((await run(backend(4, 0, bin), { maxOutputBytes: 4 * 1024 })).artifacts.length, 4);
  // 'é' is one UTF-16 unit and two UTF-8 bytes: 600 of them are 1,200 bytes, past 1,024.
  assert.is(await limitOf(run(backend(1, 0, (p) => textArtifact(p, 'é'.repeat(600))), { maxOutputBytes: 1024 })), 'maxOutputBytes');
});

Budget('should measure an artifact as the bytes it takes on disk', () => {
  assert.is(artifactBytes({ path: 'a', content: 'abc', binary: false }), 3);
  assert.is(artifactBytes({ path: 'a', content: 'é😀', binary: false }), 6);
  assert.is(artifactBytes({ path: 'a', content: 'QQ==', binary: true }), 1);
  assert.is(artifactBytes({ path: 'a', content: 'QUJD\nREVG\n', binary: true }), 6);
  assert.is(artifactBytes({ path: 'a', content: '', binary: true }), 0);
});

Budget.run();
