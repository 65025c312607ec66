// `mep compile <dir> --watch` with the Elm frontend (process build) in a process of its own, driven
// like a user: edit, break, fix, Ctrl+C. Every step waits for the line the watcher prints, never
// for a fixed time.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { builtExample, REPO_ROOT } from '../testing/built.ts';
import { startWatch } from '../../host/src/cli/testing/watch-child.ts';

const start = (cwd: string, args: string[]) => startWatch('compile', cwd, args);

const Watch = suite('mep compile --watch with the Elm frontend');

Watch('should compile incrementally on every save, keep the last good IR over a broken module, and stop on Ctrl+C', async () => {
  const root = await mkdtemp(join(tmpdir(), 'mep-elm-watch-'));
  const dir = join(root, 'showcase');
  let watcher: ReturnType<typeof start> | undefined;
  try {
    await cp(join(REPO_ROOT, 'fixtures/ir/showcase'), dir, { recursive: true });
    await rm(join(dir, 'morphir-ir.json'));
    const elm = await builtExample('elm-frontend', 'process');
    const orders = join(dir, 'src/Acme/Showcase/Orders.elm');
    const original = await readFile(orders, 'utf8');
    const ir = async () => JSON.parse(await readFile(join(dir, 'morphir-ir.json'), 'utf8'));
    watcher = start(root, ['showcase', '--extension', elm]);
    const watching = watcher.next(/^err mep compile: watching showcase/);
    assert.match(await watcher.next(/^out \[\d\d:\d\d:\d\d\] Compiled/), /Compiled 3 modules \(3 compiled\), written to showcase\/morphir-ir\.json — \d+ ms$/);
    await watching;
    const committed = JSON.parse(await readFile(join(REPO_ROOT, 'fixtures/ir/showcase/morphir-ir.json'), 'utf8'));
    assert.equal(await ir(), committed);

    // A body-only edit of a module no other imports: that module alone is compiled again.
    let line = watcher.next(/^(out|err) \[\d\d:\d\d:\d\d\] Comp/);
    await writeFile(orders, original.replace('defaultStatus =\n    Draft', 'defaultStatus =\n    Draft\n'));
    assert.match(await line, /Compiled 3 modules \(1 compiled, 2 unchanged\)/);

    // Broken: reported with the file and line; the IR file keeps the last good IR.
    const good = await ir();
    line = watcher.next(/^(out|err) \[\d\d:\d\d:\d\d\] Comp/);
    await writeFile(orders, original.replace('defaultStatus =\n    Draft', 'defaultStatus =\n    Draft +'));
    assert.match(await line, /Compilation failed: Orders \(2 unchanged, 1 failed\) — \d+ ms; the last good IR stays; 2 modules compiled/);
    assert.ok(watcher.lines.some((l) => /showcase\/src\/Acme\/Showcase\/Orders\.elm:\d+:\d+/.test(l)), watcher.lines.join('\n'));
    assert.equal(await ir(), good);

    // Fixed: the IR is the full compile's again.
    line = watcher.next(/^(out|err) \[\d\d:\d\d:\d\d\] Comp/);
    await writeFile(orders, original);
    assert.match(await line, /Compiled 3 modules \(1 compiled, 2 unchanged\)/);
    assert.equal(await ir(), committed);

    const stopped = watcher.next(/^err mep compile: stopped watching\./);
    watcher.child.kill('SIGINT');
    await stopped;
    assert.is(await watcher.exited, 0);
  } finally {
    if (watcher && watcher.child.exitCode === null) watcher.child.kill('SIGKILL');
    await rm(root, { recursive: true, force: true });
  }
});

Watch.run();
