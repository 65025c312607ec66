// Attacks on what mep prints, of classes the other suites do not name: a huge log line, a
// run of 300,000 combining marks, a diagnostic whose location makes the renderer build a gigantic
// caret line or read a device, and the transcript of a hostile run. Each failed before its fix, but
// the device case, not run against the old code: it read /dev/zero until memory ran out.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildSourceBothRuntimes } from '../../../build/guest/testing/build-both.ts';
import { HOST_BOUNDS } from '../protocol/limits.ts';
import { seededRotation } from '../../../fixtures/testing/tier.ts';
import { captureIo } from './io.ts';
import { main } from './main.ts';

const SOURCE = `import { defineExtension, textArtifact } from 'mep-runtime/guest-pdk';
export default defineExtension({
  info: { id: 'red.team', name: 'red \\u202eteam', version: '1.0.0' },
  backend: {
    targets: ['t'],
    irVersions: ['3'],
    generate({ options }, ctx) {
      if (typeof options.logChars === 'number') console.warn('x'.repeat(options.logChars));
      if (typeof options.progress === 'number') for (let i = 0; i < options.progress; i++) ctx.progress('report', 'step ' + i, i % 100);
      if (typeof options.logLines === 'number') for (let i = 0; i < options.logLines; i++) console.warn('line ' + i);
      const diagnostics = Array.isArray(options.diagnostics) ? options.diagnostics : [];
      if (typeof options.marks === 'number') diagnostics.push({ severity: 'warning', code: 'zalgo', message: 'e' + '\\u0301'.repeat(options.marks) });
      return { artifacts: [textArtifact('ok.txt', 'ok')], diagnostics };
    },
  },
});
`;
const IR = JSON.stringify({ formatVersion: 3, distribution: ['Library', [['acme']], [], { modules: [] }] });

let built: Promise<{ dir: string; wasm: string; mjs: string }> | undefined;
const guests = () => (built ??= buildSourceBothRuntimes('red', SOURCE, { 'ir.json': IR }));

async function generate(runtime: 'wasm' | 'process', options: Record<string, unknown>, ...flags: string[]) {
  const g = await guests();
  const io = captureIo(g.dir);
  const option = Object.entries(options).flatMap(([key, value]) => ['--option', `${key}=${JSON.stringify(value)}`]);
  const started = performance.now();
  const code = await main(['generate', '--extension', runtime === 'wasm' ? g.wasm : g.mjs, '--target', 't', '--input', 'ir.json', '--output', `out-${runtime}`, ...option, ...flags], io);
  return { code, io, ms: performance.now() - started, dir: g.dir };
}

const longestLine = (lines: string[]): number => Math.max(0, ...lines.flatMap((l) => l.split('\n')).map((l) => l.length));

const Red = suite('cli :: red team of what mep prints');

for (const runtime of ['wasm', 'process'] as const) {
  // A wasm guest spends its own deadline writing a long line (about 1 s a MB in QuickJS): 2 MB there.
  Red(`should cut a log line of megabytes without a line break to one bounded line :: ${runtime}`, async () => {
    const { code, io } = await generate(runtime, { logChars: (runtime === 'wasm' ? 2 : 8) * 1024 * 1024 }, '--verbose');
    assert.is(code, 0, io.stderr.join('\n').slice(0, 1500));
    assert.ok(longestLine(io.stderr) <= HOST_BOUNDS.maxLineChars + 200, `a line of ${longestLine(io.stderr)} characters`);
    assert.match(io.stderr.join('\n'), /more characters/);
  });
}

Red('should show 300,000 combining marks on one letter as at most 30 and escapes, and keep them in --json :: zalgo', async () => {
  const { code, io } = await generate('wasm', { marks: 300_000 });
  assert.is(code, 0);
  const text = io.stderr.join('\n');
  assert.not.match(text, new RegExp(`\\p{M}{${HOST_BOUNDS.maxCombiningMarks + 1}}`, 'u'));
  const json = await generate('wasm', { marks: 300_000 }, '--json');
  const message = (JSON.parse(json.io.stdout.join('\n')) as { diagnostics: { message: string }[] }).diagnostics[0]?.message;
  assert.is(message, `e${'\u0301'.repeat(300_000)}`);
});

Red('should show the log lines of a wasm call past the Extism kernel\'s 32,767 blocks as a count, not as garbled errors :: wasm', async () => {
  // The Extism SDK addresses block n as n << 48, a signed i64 in the guest: the 32,768th block of a
  // call has a negative address, and every log line after it was "failed to log(warn): bad block reference".
  const lines = HOST_BOUNDS.maxExtismBlocks + 300;
  const { code, io } = await generate('wasm', { logLines: lines });
  assert.is(code, 0, io.stderr.slice(-3).join('\n'));
  const text = io.stderr.join('\n');
  assert.not.match(text, /bad block reference|failed to log/);
  const shown = io.stderr.filter((l) => /warning: line \d+$/.test(l)).length;
  assert.ok(shown >= HOST_BOUNDS.maxExtismBlocks - 8 && shown < lines, `${shown} lines shown`);
  const dropped = /(\d+) log lines of this call were dropped: .*maxExtismBlocks/.exec(text);
  assert.ok(dropped, text.slice(-600));
  assert.is(shown + Number(dropped[1]), lines, 'every line shown or counted');
});

// One runtime a run in npm test (the seed picks), both under test:long.
for (const runtime of seededRotation(['wasm', 'process'] as const)) {
  Red(`should redraw the progress line of 8,000 reports at most once per statusIntervalMs :: ${runtime}`, async () => {
    const g = await guests();
    const io = captureIo(g.dir, new Uint8Array(0), { isTty: true });
    const started = performance.now();
    const code = await main(['generate', '--extension', runtime === 'wasm' ? g.wasm : g.mjs, '--target', 't', '--input', 'ir.json', '--output', `out-progress-${runtime}`, '--option', 'progress=8000'], io);
    const ms = performance.now() - started;
    assert.is(code, 0, io.stderr.join('\n').slice(0, 500));
    const most = Math.ceil(ms / HOST_BOUNDS.statusIntervalMs) + 3;
    assert.ok(io.shown.length > 0 && io.shown.length <= most, `${io.shown.length} redraws in ${Math.round(ms)} ms (at most ${most})`);
  });
}

Red('should render a diagnostic whose location is far outside its line without building a gigantic caret line :: hostile', async () => {
  const g = await guests();
  const uri = pathToFileURL(join(g.dir, 'ir.json')).href;
  const far = { severity: 'error', code: 'far', message: 'far away', location: { uri, range: { start: { line: 0, character: 2 ** 50 }, end: { line: 0, character: 2 ** 50 + 10 } } } };
  const wide = { severity: 'error', code: 'wide', message: 'wide', location: { uri, range: { start: { line: 0, character: 0 }, end: { line: 0, character: 2 ** 40 } } } };
  const { code, io } = await generate('process', { diagnostics: [far, wide] });
  assert.is(code, 1, io.stderr.join('\n').slice(0, 500));
  assert.not.match(io.stderr.join('\n'), /unexpected failure/);
  assert.ok(longestLine(io.stderr) <= HOST_BOUNDS.maxLineChars + 200, `a line of ${longestLine(io.stderr)} characters`);
});

Red('should not read a device or a large file a diagnostic points at :: hostile', async () => {
  const g = await guests();
  const large = join(g.dir, 'large.txt');
  writeFileSync(large, 'y'.repeat(4 * 1024 * 1024));
  const at = (uri: string) => ({ severity: 'warning', code: 'dev', message: 'look here', location: { uri, range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } } } });
  const { code, io, ms } = await generate('process', { diagnostics: [at('file:///dev/zero'), at('file:///dev/urandom'), at(pathToFileURL(large).href)] });
  assert.is(code, 0, io.stderr.join('\n').slice(0, 500));
  assert.not.match(io.stderr.join('\n'), /yyyyyyyy/, 'the large file is not shown');
  assert.ok(ms < 60_000);
});

Red('should write the transcript of a hostile run as JSON lines with nothing a terminal obeys :: transcript', async () => {
  const { code, dir } = await generate('wasm', { marks: 100, diagnostics: [{ severity: 'warning', message: '\x1b]52;c;AAAA\x07 \u009b2J \u202e' }] }, '--transcript', 'run.jsonl');
  assert.is(code, 0);
  const text = readFileSync(join(dir, 'run.jsonl'), 'utf8');
  assert.not.match(text, /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e]/);
  assert.not.match(text, new RegExp(`\\p{M}{${HOST_BOUNDS.maxCombiningMarks + 1}}`, 'u'));
  for (const line of text.trim().split('\n')) JSON.parse(line);
  assert.match(text, /\\u001b\]52/);
});

Red.run();
