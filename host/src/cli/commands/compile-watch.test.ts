// `mep compile --watch` on hostile project folders: links out of the project, to `/` and in a
// loop, FIFOs and sockets, more folders than it watches. The watch runs in this process against a
// real frontend (the PDK, in-process transport), with the real file system.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineExtension } from '../../../../guest-pdk/src/index.ts';
import { compileProject, readMorphirProject, readSourceFolders } from '../../project/index.ts';
import { createSession } from '../../session/session.ts';
import { createInProcessTransport } from '../../testing/in-process-transport.ts';
import { captureIo } from '../io.ts';
import { HOST_FILE_LIMITS } from '../../protocol/limits.ts';
import { LONG_TESTS } from '../../../../fixtures/testing/tier.ts';
import { inotifyWatches } from '../testing/inotify.ts';
import { watchCompile } from './compile-watch.ts';

/** A frontend that counts its compiles and names the documents it was sent. */
function frontend(language: { id: string; fileExtensions: string[] } = { id: 'elm', fileExtensions: ['.elm'] }) {
  const compiled: string[][] = [];
  const extension = defineExtension({
    info: { id: 'test.watched', name: 'watched', version: '1.0.0' },
    frontend: {
      languages: [language],
      irVersions: ['3'],
      multiDocument: true,
      compile(params) {
        compiled.push(params.sources.documents.map((d) => d.uri.slice(d.uri.lastIndexOf('/') + 1)));
        return { irVersion: '3', ir: { formatVersion: 3, distribution: ['Library', [['acme']], [], { modules: [] }] }, modules: ['A'] };
      },
    },
  });
  return { compiled, session: createSession({ transport: createInProcessTransport(extension) }) };
}

const until = async (what: string, done: () => boolean): Promise<void> => {
  for (let i = 0; i < 400 && !done(); i++) await new Promise((r) => setTimeout(r, 25));
  assert.ok(done(), `timed out waiting for ${what}`);
};

/** `mep compile --watch` of `dir`'s `.elm` sources with `session`, writing no IR, as the CLI wires it. */
function watchElm(io: ReturnType<typeof captureIo>, dir: string, session: ReturnType<typeof frontend>['session'], signal: AbortSignal, extra: { maxWatchedFolders?: number } = {}): Promise<void> {
  return watchCompile(io, {
    projectDir: dir,
    fileExtensions: ['.elm'],
    signal,
    ...extra,
    sourceFolders: async () => (await readSourceFolders(dir)).folders,
    compile: async (baseline) => compileProject(session, await readMorphirProject(dir), { signal, baseline, output: false }),
    scrub: (d) => [...d],
  });
}

const Watch = suite('cli :: mep compile --watch on a hostile project folder');

Watch('should watch folder by folder, never through a link (a loop, /, out of the project) nor into a FIFO or socket, at most maxWatchedFolders, and still see an edit', async () => {
  if (process.platform !== 'linux') return;
  const dir = mkdtempSync(join(tmpdir(), 'mep-watch-hostile-'));
  const outside = mkdtempSync(join(tmpdir(), 'mep-watch-outside-'));
  const server = createServer();
  const { compiled, session } = frontend();
  const controller = new AbortController();
  try {
    writeFileSync(join(dir, 'morphir.json'), JSON.stringify({ name: 'acme', sourceDirectory: 'src' }));
    const src = join(dir, 'src');
    // 30 folders of 20 files each: Node.js's recursive watch took 630 watches here.
    for (let d = 0; d < 30; d++) {
      mkdirSync(join(src, `D${d}`, 'Deep'), { recursive: true });
      for (let f = 0; f < 20; f++) writeFileSync(join(src, `D${d}`, `F${f}.txt`), '');
    }
    writeFileSync(join(src, 'A.elm'), 'module A exposing (..)\n');
    for (let f = 0; f < 200; f++) writeFileSync(join(outside, `Secret${f}.elm`), '');
    symlinkSync('/', join(src, 'root'));
    symlinkSync('..', join(src, 'D0', 'loop'));
    symlinkSync(outside, join(src, 'out'));
    execFileSync('mkfifo', [join(src, 'pipe.elm')]);
    await new Promise<void>((resolve) => server.listen(join(src, 'sock.elm'), resolve));

    await session.start();
    const io = captureIo(dir);
    const before = inotifyWatches();
    const watching = watchElm(io, dir, session, controller.signal, { maxWatchedFolders: 8 });
    await until('the first compile', () => compiled.length === 1 && io.stderr.some((l) => l.includes('press Ctrl+C'))).catch((e) => { throw new Error(`${e.message}: ${compiled.length} ${io.stderr.join('\n')} ${io.stdout.join('\n')}`); });
    assert.equal(compiled[0], ['A.elm'], 'only the project\'s own source, nothing through a link, no FIFO or socket');
    const held = inotifyWatches() - before;
    assert.ok(held <= 8, `at most maxWatchedFolders inotify watches, held ${held}`);
    assert.ok(io.stderr.some((l) => /watching the 8 shallowest folders .*54 more are not watched/.test(l)), io.stderr.join('\n'));

    // Changes outside (through the link) start nothing; an edit of the source does.
    writeFileSync(join(outside, 'Secret0.elm'), 'changed');
    await new Promise((r) => setTimeout(r, 300));
    assert.is(compiled.length, 1, 'a change reached only through a link is not watched');
    writeFileSync(join(src, 'A.elm'), 'module A exposing (..)\n-- edited\n');
    await until('the compile after an edit', () => compiled.length === 2);
    controller.abort();
    await watching;
    assert.is(inotifyWatches(), before, 'every watch closed');
  } finally {
    controller.abort();
    server.close();
    await session.close();
    rmSync(dir, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  }
});

Watch('should not compile again because it wrote the IR, when the IR file has a source file\'s extension (a .json language, sourceDirectory ".") :: hostile', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mep-watch-own-output-'));
  const { compiled, session } = frontend({ id: 'jsonish', fileExtensions: ['.json'] });
  const controller = new AbortController();
  try {
    writeFileSync(join(dir, 'morphir.json'), JSON.stringify({ name: 'acme', sourceDirectory: '.' }));
    writeFileSync(join(dir, 'model.json'), '{}');
    await session.start();
    const io = captureIo(dir);
    const read = { languageId: 'jsonish', fileExtensions: ['.json'] };
    const watching = watchCompile(io, {
      projectDir: dir,
      output: join(dir, 'morphir-ir.json'),
      fileExtensions: ['.json'],
      signal: controller.signal,
      sourceFolders: async () => (await readSourceFolders(dir, read)).folders,
      compile: async (baseline) => compileProject(session, await readMorphirProject(dir, read), { signal: controller.signal, baseline }),
      scrub: (d) => [...d],
    });
    await until('the first compile', () => io.stdout.some((l) => l.includes('written to morphir-ir.json')));
    // Its own write of morphir-ir.json (a .json file in the watched folder) must not start a compile, which would write it again, forever.
    await new Promise((r) => setTimeout(r, 800));
    assert.is(compiled.length, 1, `${compiled.length} compiles: ${io.stdout.join('\n')}`);
    writeFileSync(join(dir, 'model.json'), '{"edited":true}');
    await until('the compile after an edit', () => compiled.length === 2);
    controller.abort();
    await watching;
  } finally {
    controller.abort();
    await session.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

// Long form (npm run test:long): 50,000 files in 5,000 folders, where Node.js's recursive watch
// held 55,000 inotify watches and blocked the event loop for seconds while it read the tree.
if (LONG_TESTS) {
  Watch('should hold at most watchedFolders inotify watches over a tree of 50,000 files in 5,000 folders :: long', async () => {
    if (process.platform !== 'linux') return;
    const dir = mkdtempSync(join(tmpdir(), 'mep-watch-wide-'));
    const { compiled, session } = frontend();
    const controller = new AbortController();
    try {
      writeFileSync(join(dir, 'morphir.json'), JSON.stringify({ name: 'acme', sourceDirectory: 'src' }));
      mkdirSync(join(dir, 'src'));
      writeFileSync(join(dir, 'src', 'A.elm'), 'module A exposing (..)\n');
      execFileSync('bash', ['-c', 'cd "$1" && for d in $(seq 5000); do mkdir D$d && touch D$d/F{1..10}.txt; done', 'bash', join(dir, 'src')]);
      await session.start();
      const io = captureIo(dir);
      const before = inotifyWatches();
      const watching = watchElm(io, dir, session, controller.signal);
      await until('the first compile', () => compiled.length === 1 && io.stderr.some((l) => l.includes('press Ctrl+C')));
      const held = inotifyWatches() - before;
      assert.ok(held <= HOST_FILE_LIMITS.watchedFolders, `held ${held} inotify watches`);
      assert.ok(io.stderr.some((l) => /more are not watched/.test(l)), io.stderr.join('\n'));
      writeFileSync(join(dir, 'src', 'A.elm'), 'module A exposing (..)\n-- edited\n');
      await until('the compile after an edit', () => compiled.length === 2);
      controller.abort();
      await watching;
    } finally {
      controller.abort();
      await session.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

Watch.run();
