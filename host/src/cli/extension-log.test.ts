import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildGuest } from '../../../build/guest/index.ts';
import { captureIo } from './io.ts';
import { main } from './main.ts';

// One extension, built for both runtimes: it logs at every level, from its top level too, reads
// the clock and shows a date from it (a warning without the grant) and leaves a rejection unhandled.
const SOURCE = `import { defineExtension, textArtifact } from 'mep-runtime/guest-pdk';
console.log('loading at the top level');
export default defineExtension({
  info: { id: 'acme.noisy', name: 'noisy', version: '1.0.0' },
  backend: {
    targets: ['noisy'],
    irVersions: ['3'],
    async generate(_params, ctx) {
      console.info('an info line');
      console.debug('a debug line');
      console.warn('careful: %d things', 2);
      console.error('something failed');
      ctx.log('warn', 'told through ctx.log');
      Promise.reject(new RangeError('nobody handled this'));
      await new Promise((resolve) => setTimeout(resolve, 1));
      return { artifacts: [textArtifact('when.txt', String(new Date().getFullYear() > 0))] };
    },
  },
});
`;
const IR = JSON.stringify({ formatVersion: 3, distribution: ['Library', [['acme']], [], { modules: [] }] });

let built: Promise<{ dir: string; wasm: string; mjs: string }> | undefined;
const extensions = () =>
  (built ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mep-extension-log-'));
    writeFileSync(join(dir, 'noisy.ts'), SOURCE);
    writeFileSync(join(dir, 'ir.json'), IR);
    const wasm = await buildGuest({ entry: join(dir, 'noisy.ts'), outFile: join(dir, 'noisy.wasm'), cwd: dir });
    const mjs = await buildGuest({ entry: join(dir, 'noisy.ts'), outFile: join(dir, 'noisy.mjs'), runtime: 'process', cwd: dir });
    return { dir, wasm: wasm.outFile, mjs: mjs.outFile };
  })());

async function generate(extension: string, ...flags: string[]): Promise<{ stderr: string[]; stdout: string }> {
  const { dir } = await extensions();
  const io = captureIo(dir);
  const code = await main(['generate', '--extension', extension, '--target', 'noisy', '--input', 'ir.json', '--output', `out-${flags.join('')}`, '--json', ...flags], io);
  assert.is(code, 0, io.stderr.join('\n'));
  return { stderr: io.stderr, stdout: io.stdout.join('\n') };
}

const Log = suite("cli :: an extension's warnings and errors reach the user");

for (const runtime of ['wasm', 'process'] as const) {
  Log(`should print warnings and errors on stderr by default, prefixed with the extension, and keep --json stdout clean :: ${runtime}`, async () => {
    const e = await extensions();
    const { stderr, stdout } = await generate(runtime === 'wasm' ? e.wasm : e.mjs);
    assert.is(JSON.parse(stdout).success, true);
    const shown = stderr.map((l) => l.split('\n')[0]);
    for (const line of ['acme.noisy: warning: careful: 2 things', 'acme.noisy: error: something failed', 'acme.noisy: warning: told through ctx.log', 'acme.noisy: warning: Unhandled promise rejection: RangeError: nobody handled this']) {
      assert.ok(shown.includes(line), `${line}\n--- stderr:\n${stderr.join('\n')}`);
    }
    assert.not.ok(stderr.some((l) => /an info line|a debug line|loading at the top level/.test(l)), stderr.join('\n'));
    // Both runtimes keep the fixed clock without the grant; the date it shows says which grant gives the real one.
    const clock = stderr.filter((l) => /^acme\.noisy: warning: .*clock/.test(l));
    assert.is(clock.length, 1, stderr.join('\n'));
    assert.match(clock[0]!, /--allow-clock|"clock"/);
  });

  Log(`should print every level with --verbose, the top level's lines included :: ${runtime}`, async () => {
    const e = await extensions();
    const { stderr } = await generate(runtime === 'wasm' ? e.wasm : e.mjs, '--verbose');
    const text = stderr.join('\n');
    assert.match(text, /\[acme\.noisy info\] an info line/);
    assert.match(text, /\[acme\.noisy debug\] a debug line/);
    assert.match(text, /\[acme\.noisy warn\] careful: 2 things/);
    // A process extension's top level runs when it starts; a wasm guest's ran inside the build's snapshot.
    if (runtime === 'process') assert.match(text, /\[noisy\.mjs info\] loading at the top level/);
  });
}

Log('should not warn about the clock once it is granted', async () => {
  for (const extension of [(await extensions()).wasm, (await extensions()).mjs]) {
    const { stderr } = await generate(extension, '--allow-clock');
    assert.not.ok(stderr.some((l) => /clock/.test(l)), stderr.join('\n'));
    assert.ok(stderr.some((l) => l.startsWith('acme.noisy: warning: careful')), stderr.join('\n'));
  }
});

Log('should refuse a malformed SOURCE_DATE_EPOCH before running anything', async () => {
  const saved = process.env.SOURCE_DATE_EPOCH;
  process.env.SOURCE_DATE_EPOCH = 'yesterday';
  try {
    const { dir } = await extensions();
    const io = captureIo(dir);
    const code = await main(['generate', '--extension', (await extensions()).wasm, '--target', 'noisy', '--input', 'ir.json', '--output', 'out-bad', '--json'], io);
    assert.is.not(code, 0);
    assert.is(JSON.parse(io.stdout.join('\n')).error.code, 'ERR_USAGE');
    assert.not.ok(existsSync(join(dir, 'out-bad')));
  } finally {
    if (saved === undefined) delete process.env.SOURCE_DATE_EPOCH;
    else process.env.SOURCE_DATE_EPOCH = saved;
  }
});

Log.after(async () => {
  if (built) rmSync((await built).dir, { recursive: true, force: true });
});

Log.run();
