/**
 * Red team (issue 31, round 14): what a process extension inherits from the host beyond its
 * environment and descriptors. The launcher (containment.ts) started the extension as a
 * background job of a non-interactive bash (`env -i … &`), and such a shell starts its background
 * jobs with SIGINT and SIGQUIT ignored; an ignored signal stays ignored across exec, so every
 * extension (and whatever it started) ran deaf to SIGINT and SIGQUIT (SigIgn 0x6), where a
 * program spawned by Node.js starts with every signal at its default (libuv resets them).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { createProcessTransport } from './index.ts';

const fixture = (file: string) => fileURLToPath(new URL(`../../../../fixtures/extensions/${file}`, import.meta.url));

const Signals = suite('process transport :: inherited signal dispositions');

for (const how of ['auto', 'process-group'] as const) {
  Signals(`should start the extension with no signal ignored or blocked, as Node.js's spawn does :: ${how}`, async () => {
    if (process.platform !== 'linux') return;
    const lines: string[] = [];
    const transport = createProcessTransport({
      name: 'signal-dispositions',
      command: fixture('signal-dispositions.sh'),
      cwd: tmpdir(),
      containment: how,
      log: (entry) => void lines.push(entry.message),
    });
    await new Promise((resolve) => transport.onClose(resolve));
    await transport.close();
    const masks = Object.fromEntries(lines.flatMap((line) => {
      const match = /(Sig(?:Ign|Blk)):\s*([0-9a-f]+)/.exec(line);
      return match ? [[match[1] as string, BigInt(`0x${match[2]}`)]] : [];
    }));
    assert.equal(Object.keys(masks).sort(), ['SigBlk', 'SigIgn'], lines.join('\n'));
    assert.is(masks.SigIgn, 0n, `ignored: 0x${masks.SigIgn?.toString(16)} (SIGINT is 0x2, SIGQUIT 0x4)`);
    assert.is(masks.SigBlk, 0n);
  });
}

Signals.run();
