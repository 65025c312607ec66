import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildGuest } from '../../../build/guest/index.ts';
import { openTransport, specFromPath } from '../../../host/src/registry/launch.ts';
import { createSession } from '../../../host/src/session/session.ts';

// Every console method, once, in a handler; the same source built for both runtimes.
const SOURCE = `import { defineExtension, textArtifact } from 'mep-runtime/guest-pdk';
export default defineExtension({
  info: { id: 'acme.console', name: 'console', version: '1.0.0' },
  backend: {
    targets: ['console'],
    irVersions: ['3'],
    generate() {
      console.log('log %s', 'x'); console.info('info', { a: [1] }); console.debug('debug'); console.warn('warn'); console.error('error');
      console.trace('trace'); console.dir({ d: 1 }); console.dirxml('dirxml'); console.table([{ a: 1 }]);
      console.assert(true, 'not shown'); console.assert(false, 'assert %d', 1);
      console.count(); console.count('c'); console.group('group'); console.log('inside'); console.groupEnd(); console.log('outside');
      return { artifacts: [textArtifact('done.txt', 'done')] };
    },
  },
});
`;

/** Every log line of one generate call, from both channels, as [level, first line]. */
async function linesOf(path: string): Promise<[string, string][]> {
  const lines: [string, string][] = [];
  const keep = (level: string, message: string) => {
    if (!message.startsWith('guest memory:')) lines.push([level, message.split('\n')[0]!]);
  };
  const session = createSession({ transport: await openTransport(specFromPath(path), (e) => keep(e.level, e.message)) });
  session.onLog((l) => keep(l.level, l.message));
  try {
    await session.start();
    assert.ok((await session.generate({ ir: { formatVersion: 3, distribution: [] }, target: 'console', options: {} })).success);
    return lines;
  } finally {
    await session.close();
  }
}

const Console = suite('process binding :: console, as the sandbox has it');

Console('should send every console method at the level and with the text the wasm sandbox gives it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mep-process-console-'));
  try {
    writeFileSync(join(dir, 'ext.ts'), SOURCE);
    const wasm = await buildGuest({ entry: join(dir, 'ext.ts'), outFile: join(dir, 'ext.wasm'), cwd: dir });
    const mjs = await buildGuest({ entry: join(dir, 'ext.ts'), outFile: join(dir, 'ext.mjs'), runtime: 'process', cwd: dir });
    const inProcess = await linesOf(mjs.outFile);
    assert.equal(inProcess, await linesOf(wasm.outFile));
    assert.equal(inProcess, [
      ['info', 'log x'], ['info', 'info { a: [ 1 ] }'], ['debug', 'debug'], ['warn', 'warn'], ['error', 'error'],
      ['debug', 'Trace: trace'], ['info', '{ d: 1 }'], ['info', 'dirxml'], ['info', '┌─────────┬───┐'],
      ['warn', 'Assertion failed: assert 1'], ['info', 'default: 1'], ['info', 'c: 1'], ['info', 'group'], ['info', '  inside'], ['info', 'outside'],
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

Console.run();
