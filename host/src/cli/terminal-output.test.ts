import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { buildSourceBothRuntimes } from '../../../build/guest/testing/build-both.ts';
import { captureIo } from './io.ts';
import { main } from './main.ts';

const mepBin = fileURLToPath(new URL('../../../bin/mep.mjs', import.meta.url));

// A guest that calls itself `mep` and writes terminal escapes everywhere it can: its log (console
// and ctx.log), its progress, its diagnostics and its identity. Built for both runtimes.
const HOSTILE = {
  clear: '\x1b[2J\x1b[H',
  title: '\x1b]0;pwned\x07',
  clipboard: '\x1b]52;c;ZWNobyBvd25lZA==\x07',
  dcs: '\x1bP1$r\x1b\\',
  c1: '\u009b31m\u009d0;t\u009c',
  bidi: 'invoice\u202Egpj.exe\u202C \u2066x\u2069',
  surrogate: 'lone \ud800 and \udfff',
  forged: 'all fine\nmep: generate finished, nothing to see\nmep call: ok',
  carriage: 'hidden\roverwritten',
};
const SOURCE = `import { defineExtension, textArtifact } from 'mep-runtime/guest-pdk';
const H = ${JSON.stringify(HOSTILE)};
export default defineExtension({
  info: { id: 'mep', name: 'mep call', version: '1.0.0' },
  backend: {
    targets: ['t'],
    irVersions: ['3'],
    generate(_params, ctx) {
      for (const [key, text] of Object.entries(H)) {
        console.warn(key + ': ' + text);
        ctx.log('error', key + ': ' + text);
        ctx.progress('report', text, 50);
      }
      const diagnostics = Object.entries(H).map(([key, text]) => ({ severity: 'warning', code: key + text, message: text }));
      return { artifacts: [textArtifact('ok.txt', 'ok')], diagnostics };
    },
  },
});
`;
const IR = JSON.stringify({ formatVersion: 3, distribution: ['Library', [['acme']], [], { modules: [] }] });

let built: Promise<{ dir: string; wasm: string; mjs: string }> | undefined;
const guests = () => (built ??= buildSourceBothRuntimes('hostile', SOURCE, { 'ir.json': IR }));

/** A code point a terminal obeys (C0 but tab and newline, DEL, C1, bidi and invisible format characters, lone surrogates). */
const OBEYED = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b\u200e\u200f\u2028-\u202e\u2060-\u206f\ufeff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function assertSafe(text: string, where: string): void {
  const hit = OBEYED.exec(text);
  assert.ok(hit === null, `${where} holds U+${hit?.[0].charCodeAt(0).toString(16).padStart(4, '0')} near ${JSON.stringify(text.slice(Math.max(0, (hit?.index ?? 0) - 20), (hit?.index ?? 0) + 20))}`);
  // Nothing the extension wrote starts a line that reads as mep's own.
  for (const line of text.split('\n')) assert.not.match(line, /^(mep( [a-z]+)?|warning|error):/, `${where} has a forged line: ${line}`);
}

const Terminal = suite('cli :: what an extension writes reaches the terminal shown, not obeyed');

for (const runtime of ['wasm', 'process'] as const) {
  Terminal(`should escape controls, escapes, bidi and lone surrogates in logs, progress and diagnostics, and not let the guest pass for mep :: ${runtime}`, async () => {
    const g = await guests();
    const io = captureIo(g.dir, undefined, { isTty: true });
    const code = await main(['generate', '--extension', runtime === 'wasm' ? g.wasm : g.mjs, '--target', 't', '--input', 'ir.json', '--output', `out-${runtime}`, '--verbose'], io);
    assert.is(code, 0, io.stderr.join('\n'));
    assertSafe(io.stderr.join('\n'), 'stderr');
    assertSafe(io.stdout.join('\n'), 'stdout');
    assertSafe(io.shown.join('\n'), 'the progress line');
    assert.ok(io.shown.length > 0 && io.shown.every((line) => line.length <= 160), 'progress is drawn, one short line each');
    const all = io.stderr.join('\n');
    // Shown visibly, as escapes.
    assert.ok(all.includes('\\u001b]52;c;ZWNobyBvd25lZA==\\u0007'), 'the OSC 52 write is shown');
    assert.ok(all.includes('invoice\\u202egpj.exe'), 'the bidi override is shown');
    assert.ok(all.includes('"mep": warning:') || all.includes('["mep" warn]'), 'the guest named mep is quoted');
  });
}

Terminal('should keep --json output valid JSON with the same values :: json', async () => {
  const g = await guests();
  const io = captureIo(g.dir);
  const code = await main(['generate', '--extension', g.wasm, '--target', 't', '--input', 'ir.json', '--output', 'out-json', '--json'], io);
  assert.is(code, 0, io.stderr.join('\n'));
  const stdout = io.stdout.join('\n');
  assertSafe(stdout, 'stdout');
  const result = JSON.parse(stdout) as { extension: string; diagnostics: { message: string }[] };
  // Lone surrogates travel as U+FFFD through UTF-8; everything else keeps its value.
  assert.equal(result.diagnostics.map((d) => d.message).filter((m) => !m.startsWith('lone')), Object.values(HOSTILE).filter((m) => !m.startsWith('lone')));
  assert.is(result.extension, 'mep');
});

Terminal("should neutralise a sandboxed guest's escapes on mep's real stderr :: process io", async () => {
  const g = await guests();
  const child = spawn(process.execPath, [mepBin, 'generate', '--extension', g.wasm, '--target', 't', '--input', 'ir.json', '--output', 'out-real'], { cwd: g.dir, stdio: ['ignore', 'pipe', 'pipe'] });
  const chunks: Buffer[] = [];
  child.stderr.on('data', (chunk: Buffer) => chunks.push(chunk));
  child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
  const code = await new Promise((resolve) => child.on('close', resolve));
  const text = Buffer.concat(chunks).toString('utf8');
  assert.is(code, 0, text);
  assertSafe(text, 'the output');
  assert.ok(text.includes('\\u001b[2J'), text);
});

Terminal.run();
