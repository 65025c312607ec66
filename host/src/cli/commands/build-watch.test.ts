// `mep build --watch` in a process of its own, driven like a user: edit, break, fix, Ctrl+C.
// Every step waits for the line the watcher prints, never for a fixed time.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startWatch } from '../testing/watch-child.ts';

const ENTRY = `import { defineExtension, textArtifact } from 'mep-runtime/guest-pdk';
import { greeting } from './lib/greeting.ts';

export default defineExtension({
  info: { id: 'watched', name: 'watched', version: '0.1.0' },
  backend: { targets: ['w'], irVersions: ['3'], generate: () => ({ artifacts: [textArtifact('g.txt', greeting)] }) },
});
`;

const start = (cwd: string, args: string[]) => startWatch('build', cwd, args);

const Watch = suite('cli :: mep build --watch');

Watch('should rebuild after an edit of an imported file, keep the last good output over a syntax error, and stop cleanly on Ctrl+C', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mep-watch-'));
  try {
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'watched', private: true, type: 'module' }));
    mkdirSync(join(dir, 'src', 'lib'), { recursive: true });
    writeFileSync(join(dir, 'src', 'extension.ts'), ENTRY);
    const lib = join(dir, 'src', 'lib', 'greeting.ts');
    writeFileSync(lib, `export const greeting = 'one';\n`);
    const out = join(dir, 'dist', 'w.mjs');
    const watcher = start(dir, ['src/extension.ts', '-o', 'dist/w.mjs', '--runtime', 'process', '--no-typecheck']);
    const watching = watcher.next(/^err mep build: watching src\/extension\.ts/);
    assert.match(await watcher.next(/^out \[\d\d:\d\d:\d\d\] Built dist\/w\.mjs/), /— \d+ ms, watching \d+ files/);
    await watching;
    assert.match(readFileSync(out, 'utf8'), /"one"/);

    // An edit of the imported file rebuilds.
    let built = watcher.next(/^out .*Built/);
    writeFileSync(lib, `export const greeting = 'two';\n`);
    await built;
    assert.match(readFileSync(out, 'utf8'), /"two"/);

    // A syntax error is reported with its place and leaves the last good output.
    const good = readFileSync(out);
    const failed = watcher.next(/^err .*build failed/);
    writeFileSync(lib, `export const greeting = 'three' +;\n`);
    await failed;
    const report = watcher.lines.slice(-3).join('\n');
    assert.match(report, /src\/lib\/greeting\.ts:1:\d+/);
    assert.equal(readFileSync(out), good);

    // Fixing it rebuilds; a burst of saves makes fewer builds than saves.
    built = watcher.next(/^out .*Built/);
    const before = watcher.lines.filter((l) => /Built/.test(l)).length;
    for (let i = 0; i < 5; i++) writeFileSync(lib, `export const greeting = 'burst ${i}';\n`);
    await built;
    // Wait for the burst's last build: its output has the last save.
    while (!/"burst 4"/.test(readFileSync(out, 'utf8'))) await watcher.next(/^out .*Built/);
    assert.ok(watcher.lines.filter((l) => /Built/.test(l)).length - before < 5, watcher.lines.join('\n'));

    // A file the entry starts to import is watched from the next build on.
    const extra = join(dir, 'src', 'lib', 'extra.ts');
    writeFileSync(extra, `export const extra = 'x1';\n`);
    built = watcher.next(/^out .*Built/);
    writeFileSync(lib, `import { extra } from './extra.ts';\nexport const greeting = extra;\n`);
    await built;
    built = watcher.next(/^out .*Built/);
    writeFileSync(extra, `export const extra = 'x2';\n`);
    await built;
    assert.match(readFileSync(out, 'utf8'), /"x2"/);

    const stopped = watcher.next(/^err mep build: stopped watching/);
    watcher.child.kill('SIGINT');
    await stopped;
    assert.is(await watcher.exited, 130);
    assert.equal(readdirSync(join(dir, 'dist')).sort(), ['w.mjs', 'w.mjs.build.json', 'w.mjs.map'], 'the output, its build record and its map: no temporary files left');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

Watch('should make one rebuild of five saves 0.2 s apart', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mep-watch-'));
  let watcher: ReturnType<typeof start> | undefined;
  try {
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'watched', private: true, type: 'module' }));
    mkdirSync(join(dir, 'src', 'lib'), { recursive: true });
    writeFileSync(join(dir, 'src', 'extension.ts'), ENTRY);
    const lib = join(dir, 'src', 'lib', 'greeting.ts');
    writeFileSync(lib, `export const greeting = 'one';\n`);
    const out = join(dir, 'dist', 'w.mjs');
    watcher = start(dir, ['src/extension.ts', '-o', 'dist/w.mjs', '--runtime', 'process', '--no-typecheck']);
    await watcher.next(/^err mep build: watching/);
    const before = watcher.lines.filter((l) => /Built/.test(l)).length;
    const written: number[] = [];
    for (let i = 0; i < 5; i++) {
      if (i > 0) await new Promise((r) => setTimeout(r, 200));
      writeFileSync(lib, `export const greeting = 'save ${i}';\n`);
      written.push(performance.now());
    }
    const gaps = written.slice(1).map((t, i) => t - written[i]!);
    while (!/"save 4"/.test(readFileSync(out, 'utf8'))) await watcher.next(/^out .*Built/);
    // A build that read the last save late may still have one queued behind it: give that one
    // time to show (twice the last build's time, at least 3 s) before counting.
    const lastMs = Number(/— (\d+) ms/.exec(watcher.lines.filter((l) => /Built/.test(l)).at(-1) ?? '')?.[1] ?? 0);
    await new Promise((r) => setTimeout(r, Math.max(3000, 2 * lastMs)));
    // A loaded machine can stretch a gap past the quiet time; then a second build is right.
    const builds = watcher.lines.filter((l) => /Built/.test(l)).length - before;
    if (!gaps.every((g) => g < 280)) console.error(`build-watch: the saves came ${gaps.map(Math.round).join(', ')} ms apart; the one-rebuild check is skipped`);
    else assert.is(builds, 1, `gaps ${gaps.map(Math.round).join(', ')} ms:\n${watcher.lines.join('\n')}`);
    const stopped = watcher.next(/^err mep build: stopped watching/);
    watcher.child.kill('SIGINT');
    await stopped;
    assert.is(await watcher.exited, 130);
  } finally {
    watcher?.child.kill('SIGKILL'); // a failed step leaves no watcher behind (a no-op once it exited)
    rmSync(dir, { recursive: true, force: true });
  }
});

Watch.run();
