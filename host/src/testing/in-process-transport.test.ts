import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { defineExtension, diagnostic, textArtifact } from '../../../guest-pdk/src/index.ts';
import { LocalErrorCode, isMepError } from '../protocol/errors.ts';
import { MAX_JSON_DEPTH } from '../protocol/json-depth.ts';
import { createSession } from '../session/session.ts';
import { createInProcessTransport } from './in-process-transport.ts';

const IR = { formatVersion: 3, distribution: ['Library', [], {}, { modules: [] }] };

/** A backend whose generate nests `depth` levels in a diagnostic's data. */
function deepBackend(depth: number) {
  return defineExtension({
    info: { id: 'test.deep', name: 'Deep', version: '1.0.0' },
    backend: {
      targets: ['avro'],
      irVersions: ['3'],
      generate: () => {
        let data: unknown = 1;
        for (let i = 0; i < depth; i++) data = [data];
        return { artifacts: [textArtifact('a.txt', 'a')], diagnostics: [diagnostic('warning', 'deep', { data })] };
      },
    },
  });
}

async function generate(depth: number): Promise<unknown> {
  const session = createSession({ transport: createInProcessTransport(deepBackend(depth)) });
  try {
    await session.start();
    return await session.generate({ ir: IR, target: 'avro' });
  } catch (error) {
    return error;
  } finally {
    await session.close();
  }
}

const InProcess = suite('createInProcessTransport :: nesting');

InProcess('should refuse a response nested deeper than the host reads, as every transport does :: hostile', async () => {
  for (const depth of [MAX_JSON_DEPTH, 3_000]) {
    const error = await generate(depth);
    assert.ok(isMepError(error), String(error));
    assert.is(error.code, LocalErrorCode.Limit);
    assert.is((error.data as { limit: string }).limit, 'maxJsonDepth');
  }
});

InProcess('should pass a result within the limit', async () => {
  const result = (await generate(MAX_JSON_DEPTH - 10)) as { success: boolean };
  assert.is(result.success, true);
});

InProcess.run();
